package dev.tether.bench;

import dev.tether.client.Checkpoint;
import dev.tether.client.SessionInfo;
import dev.tether.testing.ServiceProcess;
import dev.tether.testing.Trees;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Figure 8: the projector, holding every event of the run, is killed with SIGKILL and started again on its
 * local state; then stopped, its local state deleted, and started on an empty one. Each time the clock runs
 * from the kill (or the start) until it serves again: two sessions of every partition answer their checkpoint at
 * the last seq they had before (a partition is served once its task runs, so they stand for the others); then
 * until every session's checkpoint has been read back so, one after the other, which adds the time a pass over
 * all of them takes (about 3 s for 1,000 on the build machine). Ready ({@code /q/health/ready}) is recorded too.
 */
final class Recovery {

    /**
     * @param events                  events in {@code session-events} the projector had folded
     * @param sessions                sessions whose checkpoints were checked
     * @param killToReadyMs           SIGKILL until the restarted projector reported ready
     * @param killToServingMs         SIGKILL until every partition served its sessions' checkpoints at their last seqs
     * @param killToAllReadMs         SIGKILL until every checkpoint had been read back at its last seq
     * @param emptyStateToReadyMs     start on an empty state directory until ready
     * @param emptyStateToServingMs   start on an empty state directory until every partition served
     * @param emptyStateToAllReadMs   start on an empty state directory until every checkpoint had been read back
     * @param emptyStateEventsPerSec  events / (empty-state start until every partition served)
     * @param emptyStateRestore       the restore itself on the empty state, as the projector logged it ({@code RestoreLog})
     * @param killRestore             the restore after the SIGKILL, as the projector logged it: what of its local state it
     *                                could not keep
     */
    record Run(long events, int sessions, double killToReadyMs, double killToServingMs, double killToAllReadMs, double emptyStateToReadyMs,
            double emptyStateToServingMs, double emptyStateToAllReadMs, double emptyStateEventsPerSec, Restore emptyStateRestore,
            Restore killRestore) {
    }

    /**
     * What the projector's log said of its start and its restores in a stretch of it: the records restored (in all and
     * by store) and the milliseconds restoring, summed over its waves (one, unless a rebalance came in between), and the
     * run's events per second of that time — the restore's own rate, without the service's start and the group's join
     * around it; and where the time before the restore went: the milliseconds from the launch to Quarkus' "started" line
     * (the JVM's and the service's start) and to the first store partition restoring (after the group's join and the
     * tasks' assignment too), each -1 when its line is not in the log.
     */
    record Restore(int waves, long records, Map<String, Long> recordsByStore, long millis, double recordsPerSec, double eventsPerSec,
            long startedMs, long restoreBeganMs) {

        private static final Pattern WAVE = Pattern.compile("restored ([\\d,]+) records into \\d+ store partitions \\((.*)\\) in ([\\d,]+) ms");
        private static final Pattern STARTED = Pattern.compile("\\(powered by Quarkus [^)]*\\) started in ");
        private static final Pattern RESTORING = Pattern.compile(" restoring \\S+ from \\S+ \\(offsets ");

        /**
         * @param logLines  the projector's log from its launch on (each line beginning with its time, HH:mm:ss.SSS)
         * @param launched  the local time of the launch, by the clock the projector logs by
         */
        static Restore of(List<String> logLines, long events, LocalTime launched) {
            int waves = 0;
            long records = 0;
            var byStore = new TreeMap<String, Long>();
            long millis = 0;
            LocalTime started = null;
            LocalTime restoring = null;
            for (String line : logLines) {
                if (started == null && STARTED.matcher(line).find()) {
                    started = timeOf(line);
                }
                if (restoring == null && RESTORING.matcher(line).find()) {
                    restoring = timeOf(line);
                }
                Matcher m = WAVE.matcher(line);
                if (m.find()) {
                    waves++;
                    records += number(m.group(1));
                    for (String store : m.group(2).split(", ")) { // "checkpoints 2,345, messages 1,000,000"
                        int space = store.lastIndexOf(' ');
                        byStore.merge(store.substring(0, space), number(store.substring(space + 1)), Long::sum);
                    }
                    millis += number(m.group(3));
                }
            }
            double seconds = Math.max(millis, 1) / 1e3;
            return new Restore(waves, records, byStore, millis, records / seconds, events / seconds, since(launched, started),
                    since(launched, restoring));
        }

        private static LocalTime timeOf(String line) {
            return LocalTime.parse(line.substring(0, "HH:mm:ss.SSS".length()));
        }

        /** Milliseconds from {@code from} to the later {@code to} (across midnight if need be), or -1 without {@code to}. */
        private static long since(LocalTime from, LocalTime to) {
            if (to == null) {
                return -1;
            }
            long ms = Duration.between(from, to).toMillis();
            return ms < 0 ? ms + Duration.ofDays(1).toMillis() : ms;
        }

        private static long number(String withCommas) {
            return Long.parseLong(withCommas.replace(",", ""));
        }
    }

    private final Rig rig;

    Recovery(Rig rig) {
        this.rig = rig;
    }

    /**
     * @param events   events in {@code session-events}
     * @param written  sessions written past the session-service (figure 8's top-up: the session-service does not list
     *                 them), with their last seqs
     */
    Run measure(ServiceProcess projector, Path stateDir, long events, Map<String, Long> written) throws Exception {
        rig.awaitProjected();
        Map<String, Long> expected = new LinkedHashMap<>();
        for (SessionInfo s : rig.client().sessions()) {
            expected.put(s.sessionId(), checkpoint(s.sessionId()).map(Checkpoint::lastSeq).orElseThrow(
                    () -> new IllegalStateException("no checkpoint of " + s.sessionId() + " before the kill")));
        }
        for (var w : written.entrySet()) {
            long folded = checkpoint(w.getKey()).map(Checkpoint::lastSeq).orElse(0L);
            if (folded != w.getValue()) {
                throw new IllegalStateException("the projector folded " + w.getKey() + " to seq " + folded + ", not to its last, "
                        + w.getValue());
            }
            expected.put(w.getKey(), w.getValue());
        }

        var probes = new LinkedHashMap<String, Long>();
        // two of each partition (a small run's sessions may leave one out: it is served with the others)
        Failover.probes(expected.keySet(), rig.watch().partitions(rig.eventsTopic())).forEach(id -> probes.put(id, expected.get(id)));

        long killLogFrom = Files.size(projector.log());
        long t0 = System.nanoTime();
        projector.kill();
        LocalTime relaunched = LocalTime.now();
        projector.launch();
        var killReady = readyClock(projector, t0);
        awaitServing(probes);
        double killToServing = (System.nanoTime() - t0) / 1e6;
        awaitServing(expected);
        double killToAllRead = (System.nanoTime() - t0) / 1e6;
        double killToReady = killReady.get(16, java.util.concurrent.TimeUnit.MINUTES);
        Bench.log("recovery after SIGKILL: ready in %.0f ms, every partition serving in %.0f ms, every checkpoint read in %.0f ms",
                killToReady, killToServing, killToAllRead);

        var killRestore = Restore.of(linesFrom(projector.log(), killLogFrom), events, relaunched);

        projector.stop();
        Trees.delete(stateDir);
        long logFrom = Files.size(projector.log());
        long t1 = System.nanoTime();
        LocalTime launched = LocalTime.now();
        projector.launch();
        var emptyReady = readyClock(projector, t1);
        awaitServing(probes);
        double emptyToServing = (System.nanoTime() - t1) / 1e6;
        awaitServing(expected);
        double emptyToAllRead = (System.nanoTime() - t1) / 1e6;
        double emptyToReady = emptyReady.get(16, java.util.concurrent.TimeUnit.MINUTES);
        var restore = Restore.of(linesFrom(projector.log(), logFrom), events, launched);
        Bench.log("recovery on an empty state: ready in %.0f ms, every partition serving in %.0f ms, every checkpoint read in %.0f ms; "
                + "the restore itself %d ms (%d records, %d waves)", emptyToReady, emptyToServing, emptyToAllRead, restore.millis(),
                restore.records(), restore.waves());
        return new Run(events, expected.size(), killToReady, killToServing, killToAllRead, emptyToReady, emptyToServing, emptyToAllRead,
                events / (emptyToServing / 1e3), restore, killRestore);
    }

    /** The lines of {@code log} from byte {@code from} on. */
    private static List<String> linesFrom(Path log, long from) throws IOException {
        try (var channel = Files.newByteChannel(log)) {
            channel.position(from);
            try (var reader = new BufferedReader(Channels.newReader(channel, StandardCharsets.UTF_8))) {
                return reader.lines().toList();
            }
        }
    }

    /** The time from {@code from} until the launched projector reports ready, taken in the background. */
    private static java.util.concurrent.CompletableFuture<Double> readyClock(ServiceProcess projector, long from) {
        return java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            projector.awaitReady(java.time.Duration.ofMinutes(15));
            return (System.nanoTime() - from) / 1e6;
        });
    }

    /**
     * Asks for the sessions' checkpoints in turn until each is at its expected last seq; a session once right is not
     * asked again. A pass stops at the first session not served yet and starts again 50 ms later, so a restoring
     * projector is asked once per pass, not a thousand times.
     */
    private void awaitServing(Map<String, Long> expected) throws InterruptedException {
        var pending = new LinkedHashMap<>(expected);
        long deadline = System.nanoTime() + 15L * 60 * 1_000_000_000L;
        while (!pending.isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(pending.size() + " checkpoints not served within 15 minutes, e.g. " + pending.keySet().iterator().next());
            }
            for (var it = pending.entrySet().iterator(); it.hasNext(); ) {
                var e = it.next();
                if (!checkpoint(e.getKey()).map(c -> c.lastSeq() >= e.getValue()).orElse(false)) {
                    break;
                }
                it.remove();
            }
            if (!pending.isEmpty()) {
                Thread.sleep(50);
            }
        }
    }

    private Optional<Checkpoint> checkpoint(String sessionId) {
        try {
            return rig.client().checkpoint(sessionId);
        } catch (RuntimeException e) {
            return Optional.empty(); // restoring: 503, or not listening yet
        }
    }
}
