package dev.tether.executor.kafka;

import dev.tether.avro.SessionEvent;
import dev.tether.core.event.TurnInterrupted;
import dev.tether.core.id.SessionEventKeyBytes;
import dev.tether.kit.kafka.RegistryUnavailableException;
import dev.tether.kit.kafka.SessionPartitioner;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.WakeupException;
import org.jboss.logging.Logger;

/**
 * Watches {@code session-events} for {@code turn_interrupted} and erasures and tells {@link InFlight}, which cancels
 * the session's running calls of the turns it interrupts (or, erased, all of them). Every executor instance reads every
 * partition (no group: a call may run on any instance). It starts a look-back (15 minutes by default) in the past, so an
 * interruption that happened while the executor was down still stops the calls of the turns it interrupted.
 *
 * <p>{@link #catchUp} is the executor's barrier before it starts a call: it returns once the watcher has read every
 * event of the session's partition that was committed when it was called, so an interruption that is in the log before
 * a call starts is always known to {@link InFlight} by then, however far the watcher lagged behind the request. It also
 * makes sure the partition was read from before the call's authorization (less {@link #MARGIN}): a call authorized
 * before the watcher's start (the executor was down longer than the look-back) has the partition read further back
 * first, from that time to where the watcher started, and what that part holds of each session is folded and told to
 * {@link InFlight} beneath what it knows ({@link InFlight#before}). Runs on one thread; {@link #catchUp} and
 * {@link #stop} may be called from any thread.
 */
final class InterruptWatcher implements Runnable {

    /**
     * How much earlier than a call's authorization the partition is read from: an event's record is stamped by the
     * instance that took its request, its {@code occurredAt} by the sequencer.
     */
    static final Duration MARGIN = Duration.ofMinutes(1);
    private static final Duration POLL = Duration.ofMillis(500);
    /** The poll while a catch-up waits: its end may be a transaction marker, which a poll does not return for. */
    private static final Duration WAITING_POLL = Duration.ofMillis(20);
    /** How long one look-up of the partitions' ends may take before the watcher polls again and retries it. */
    private static final Duration END_OFFSETS_TIMEOUT = Duration.ofSeconds(5);
    private static final Logger LOG = Logger.getLogger(InterruptWatcher.class);

    /** The barrier a call passes before it starts: see {@link InterruptWatcher#catchUp}. */
    @FunctionalInterface
    interface CatchUp {
        /**
         * Returns once every interruption and erasure of {@code sessionId} committed to the log before this call, since
         * before {@code requestedAt}, is known to {@link InFlight}.
         *
         * @throws IllegalStateException if that cannot be confirmed in time: the call must not start (it comes again)
         */
        void await(String sessionId, Instant requestedAt);
    }

    /** A catch-up asked for and not yet located: the watcher looks its partition's end up. */
    private record Asked(String sessionId, Instant since, CompletableFuture<Void> done) {}

    /**
     * A partition read again from {@code from}, further back than it had been: the records below {@code until} (where it
     * had been read from) are folded by session; those from there to {@code resumeAt} (where it had been read to) were
     * told already and are passed over.
     */
    private record Backfill(long until, long resumeAt, Map<String, Folded> sessions) {}

    /** What a backfill found of one session: its last erasure's time, and its last interruption after that. */
    private static final class Folded {
        Instant erasedAt;
        long interruptSeq;
    }

    /** A catch-up located: done once the watcher's position on {@code partition} reaches {@code end}. */
    private record Located(TopicPartition partition, long end, CompletableFuture<Void> done) {}

    private final Consumer<byte[], SessionEvent> events;
    private final InFlight inFlight;
    private final BiConsumer<String, Instant> erasures;
    private final String topic;
    private final Duration catchUpTimeout;
    private final Duration lookBack;
    private final Queue<Asked> asked = new ConcurrentLinkedQueue<>();
    /** The watcher thread's own: taken from {@link #asked}, their ends not yet known. */
    private final List<Asked> locating = new ArrayList<>();
    /** The watcher thread's own. */
    private final List<Located> waiting = new ArrayList<>();
    /** The watcher thread's own: where each partition was read from, and the time every record since lies after. */
    private final Map<TopicPartition, Long> coveredFrom = new HashMap<>();
    private final Map<TopicPartition, Instant> coveredSince = new HashMap<>();
    /** The watcher thread's own: partitions being read again further back. */
    private final Map<TopicPartition, Backfill> backfills = new HashMap<>();
    private volatile boolean running = true;
    private volatile boolean ready;
    private int partitions;

    /**
     * @param catchUpTimeout how long {@link #catchUp} waits before it gives up and the call is not started
     * @param lookBack       how far back it starts reading at start-up
     * @param erasures       told of each session erased and when (the tombstone's timestamp; once per tombstone), before
     *                       a catch-up passes it: the executor removes its workspace
     * @throws IllegalArgumentException if {@code catchUpTimeout} is not positive (no call would ever start) or
     *                                  {@code lookBack} is negative, naming the setting
     */
    InterruptWatcher(Consumer<byte[], SessionEvent> events, InFlight inFlight, TopicLayout layout, Duration catchUpTimeout,
                     Duration lookBack, BiConsumer<String, Instant> erasures) {
        if (catchUpTimeout.isNegative() || catchUpTimeout.isZero()) {
            throw new IllegalArgumentException("tether.executor.interruptions.catch-up-timeout: must be a positive duration,"
                    + " e.g. PT10S, not " + catchUpTimeout);
        }
        if (lookBack.isNegative()) {
            throw new IllegalArgumentException("tether.executor.interruptions.look-back: cannot be negative, e.g. PT15M, not " + lookBack);
        }
        this.lookBack = lookBack;
        this.events = events;
        this.erasures = erasures;
        this.inFlight = inFlight;
        this.topic = layout.name(Topics.SESSION_EVENTS);
        this.catchUpTimeout = catchUpTimeout;
    }

    /**
     * An erasure's tombstone: the session's interruptions go with its events, so that a session made again under its id
     * is not cut off by them, and its calls stop ({@link InFlight#erased}); and whoever else must know is told
     * ({@code erasures}).
     */
    private void erased(byte[] key, Instant at) {
        String sessionId = sessionOf(key);
        if (sessionId != null) {
            inFlight.erased(sessionId, at);
            removeKept(sessionId, at);
        }
    }

    /** The session a tombstone's key names, or null (logged) if it is not a session-events key. */
    private static String sessionOf(byte[] key) {
        try {
            if (key == null) {
                throw new IllegalArgumentException("it has none");
            }
            return SessionEventKeyBytes.decode(key).sessionId();
        } catch (IllegalArgumentException e) {
            LOG.warnf("a tombstone on session-events whose key is not a session-events key, skipped: %s", e.getMessage());
            return null;
        }
    }

    private void removeKept(String sessionId, Instant at) {
        try {
            erasures.accept(sessionId, at);
        } catch (RuntimeException e) {
            LOG.warnf(e, "session %s was erased, and what the executor keeps of it could not all be removed", sessionId);
        }
    }

    /** A record of a backfill, below where the partition had been read from: folded into its session's. */
    private static void fold(Backfill backfill, byte[] key, SessionEvent event, Instant at) {
        if (event == null) {
            String sessionId = sessionOf(key);
            if (sessionId != null) {
                Folded folded = backfill.sessions().computeIfAbsent(sessionId, s -> new Folded());
                folded.erasedAt = at;
                folded.interruptSeq = 0; // the erased session's; a later session under the id starts its seqs anew
            }
        } else if (TurnInterrupted.TYPE.equals(event.getType())) {
            Folded folded = backfill.sessions().computeIfAbsent(event.getSessionId(), s -> new Folded());
            folded.interruptSeq = Math.max(folded.interruptSeq, event.getSeq());
        }
    }

    /** Tells {@link InFlight} what each backfill read once it has passed where the partition had been read from. */
    private void finishBackfills() {
        backfills.entrySet().removeIf(entry -> {
            if (events.position(entry.getKey()) < entry.getValue().resumeAt()) {
                return false;
            }
            entry.getValue().sessions().forEach((sessionId, folded) -> {
                inFlight.before(sessionId, folded.interruptSeq, folded.erasedAt);
                if (folded.erasedAt != null) {
                    removeKept(sessionId, folded.erasedAt);
                }
            });
            LOG.infof("%s read again from offset %d: %d sessions with an interruption or an erasure there", entry.getKey(),
                    coveredFrom.get(entry.getKey()), entry.getValue().sessions().size());
            return true;
        });
    }

    boolean ready() {
        return ready;
    }

    void stop() {
        running = false;
        events.wakeup();
    }

    /**
     * Returns once the watcher has read, and told {@link InFlight} of, every event of {@code sessionId}'s partition of
     * {@code session-events} committed when it was called (its end then, read committed), from before
     * {@code requestedAt} less the margin on.
     *
     * @throws IllegalStateException if that takes more than the catch-up timeout (the broker is unreachable, the watcher
     *                               is far behind) or the watcher stops: the caller must not start the call
     */
    void catchUp(String sessionId, Instant requestedAt) {
        var request = new Asked(sessionId, requestedAt.minus(MARGIN), new CompletableFuture<>());
        asked.add(request);
        events.wakeup(); // a poll in progress returns at once
        try {
            request.done().get(catchUpTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            request.done().cancel(false); // the watcher drops it
            throw new IllegalStateException("the interruptions of session " + sessionId + " could not be read up to now within "
                    + catchUpTimeout + ": the call is not started, and is tried again");
        } catch (ExecutionException e) {
            throw new IllegalStateException("the interruptions of session " + sessionId + " could not be read: "
                    + e.getCause().getMessage() + "; the call is not started, and is tried again", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the interruptions of session " + sessionId, e);
        }
    }

    @Override
    public void run() {
        try {
            if (!assign()) {
                return;
            }
            ready = true;
            while (running) {
                try {
                    locate();
                    release();
                    for (var record : events.poll(waiting.isEmpty() ? POLL : WAITING_POLL)) {
                        Backfill backfill = backfills.get(new TopicPartition(record.topic(), record.partition()));
                        if (backfill != null && record.offset() < backfill.resumeAt()) {
                            if (record.offset() < backfill.until()) {
                                fold(backfill, record.key(), record.value(), Instant.ofEpochMilli(record.timestamp()));
                            }
                            continue; // else told already
                        }
                        SessionEvent event = record.value();
                        if (event == null) {
                            erased(record.key(), Instant.ofEpochMilli(record.timestamp()));
                        } else if (TurnInterrupted.TYPE.equals(event.getType())) {
                            inFlight.interrupt(event.getSessionId(), event.getSeq());
                        }
                    }
                    finishBackfills();
                    release();
                } catch (WakeupException e) {
                    // a catch-up was asked for (it is located next), or stop() was called
                } catch (RecordDeserializationException e) {
                    if (RegistryUnavailableException.in(e).isPresent()) {
                        // an interruption must not be missed: the event is read again once the registry answers
                        LOG.warnf("session-events %s offset %d waits for the schema registry: %s", e.topicPartition(), e.offset(),
                                e.getCause().getMessage());
                        pause(REGISTRY_BACKOFF);
                        continue;
                    }
                    LOG.warnf("session-events %s offset %d cannot be read, skipped: %s", e.topicPartition(), e.offset(),
                            e.getMessage());
                    events.seek(e.topicPartition(), e.offset() + 1);
                } catch (org.apache.kafka.common.errors.TimeoutException e) {
                    LOG.debugf("the ends of session-events could not be looked up yet (%s); trying again", e.getMessage());
                }
            }
        } finally {
            ready = false; // no call starts without it: the executor is not ready either
            var stopped = new IllegalStateException("the interruption watcher stopped");
            asked.forEach(a -> a.done().completeExceptionally(stopped));
            locating.forEach(a -> a.done().completeExceptionally(stopped));
            waiting.forEach(w -> w.done().completeExceptionally(stopped));
            events.close();
        }
    }

    /** How long the watcher waits before reading an event again whose schema the registry did not give. */
    private static final Duration REGISTRY_BACKOFF = Duration.ofSeconds(1);

    private static void pause(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Assigns every partition and seeks the look-back back; false if stopped first. */
    private boolean assign() {
        while (running) {
            try {
                var all = events.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
                events.assign(all);
                seekToLookback(all);
                partitions = all.size();
                return true;
            } catch (WakeupException e) {
                // a catch-up asked for before the start: it is located once the partitions are assigned
            } catch (org.apache.kafka.common.errors.TimeoutException e) {
                LOG.warnf("session-events cannot be assigned yet (%s); trying again", e.getMessage());
            }
        }
        return false;
    }

    /**
     * Looks up the current end of the partition of every catch-up asked for since the last look; one that asks for an
     * earlier time than its partition was read from first has the partition read again from that time
     * ({@link #readBack}), and waits while another backfill of the partition runs.
     */
    private void locate() {
        for (Asked a; (a = asked.poll()) != null; ) {
            locating.add(a);
        }
        locating.removeIf(a -> a.done().isDone()); // its caller gave up
        var byPartition = new HashMap<Asked, TopicPartition>();
        var partitionsAsked = new LinkedHashSet<TopicPartition>();
        for (Asked a : locating) {
            var partition = new TopicPartition(topic, SessionPartitioner.partition(a.sessionId(), partitions));
            if (a.since().isBefore(coveredSince.get(partition)) && !backfills.containsKey(partition)) {
                readBack(partition, a.since());
            }
            if (!backfills.containsKey(partition) || !a.since().isBefore(coveredSince.get(partition))) {
                byPartition.put(a, partition);
                partitionsAsked.add(partition);
            }
        }
        if (partitionsAsked.isEmpty()) {
            return;
        }
        Map<TopicPartition, Long> ends = events.endOffsets(partitionsAsked, END_OFFSETS_TIMEOUT);
        byPartition.forEach((a, partition) -> waiting.add(new Located(partition, ends.get(partition), a.done())));
        locating.removeAll(byPartition.keySet());
    }

    /**
     * Reads {@code partition} again from {@code since} (its first record at or after it), which is before where it was
     * read from: the part not read before is folded, the rest passed over ({@link Backfill}).
     */
    private void readBack(TopicPartition partition, Instant since) {
        // a time before the epoch (a call authorized within the margin of it) is the partition's start: the consumer
        // refuses a negative one, which would end the watcher and with it every catch-up
        long time = since.isBefore(Instant.EPOCH) ? 0 : since.toEpochMilli();
        OffsetAndTimestamp at = events.offsetsForTimes(Map.of(partition, time)).get(partition);
        long from = at != null ? at.offset() : Long.MAX_VALUE;
        long until = coveredFrom.get(partition);
        coveredSince.put(partition, since);
        if (from >= until) {
            return; // nothing there that was not read
        }
        long resumeAt = events.position(partition);
        LOG.infof("%s: a call was authorized before this executor read the partition from (offset %d, %s); reading it again"
                + " from offset %d", partition, until, coveredSince.get(partition), from);
        backfills.put(partition, new Backfill(until, resumeAt, new HashMap<>()));
        coveredFrom.put(partition, from);
        events.seek(partition, from);
    }

    /** Completes every catch-up whose partition the watcher has read up to its end. */
    private void release() {
        waiting.removeIf(w -> {
            if (w.done().isDone()) {
                return true; // its caller gave up
            }
            if (events.position(w.partition()) >= w.end()) {
                w.done().complete(null);
                return true;
            }
            return false;
        });
    }

    private void seekToLookback(List<TopicPartition> partitions) {
        Instant since = Instant.now().minus(lookBack);
        var query = new HashMap<TopicPartition, Long>();
        partitions.forEach(p -> query.put(p, since.toEpochMilli()));
        Map<TopicPartition, OffsetAndTimestamp> found = events.offsetsForTimes(query);
        var end = events.endOffsets(partitions);
        for (var partition : partitions) {
            OffsetAndTimestamp at = found.get(partition);
            long from = at != null ? at.offset() : end.get(partition);
            events.seek(partition, from);
            coveredFrom.put(partition, from);
            coveredSince.put(partition, since);
        }
    }
}
