package dev.tether.bench;

import dev.tether.client.NewEvent;
import dev.tether.client.SessionWriter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Figure 5: what one more event costs the projector once a session is long. One session per length is filled
 * to that length through the SDK (the projector folding along); then, per length, a window of events is
 * appended and the projector's CPU time and the bytes written to its stores (changelogs, checkpoints) are
 * divided by the window's events. The CPU the idle projector burns (commits, polls) in a second just before
 * the window is subtracted. Windows of the lengths alternate, so drift of the shared machine hits all alike.
 */
final class ConstantCost {

    /**
     * One window. CPU figures have the idle rate of the second before the window subtracted.
     *
     * @param fromSeq                          the session's length when the window started
     * @param events                           events appended in the window
     * @param seconds                          from the first append until the projector committed the last event
     * @param projectorStreamMicrosPerEvent    CPU time of the projector's Kafka Streams threads per event (the fold, its
     *                                         stores, serdes, sends): the figure
     * @param projectorCpuMicrosPerEvent       CPU time of the whole projector process per event (network threads, GC, JIT too)
     * @param sessionServiceCpuMicrosPerEvent  CPU time of the whole session-service (REST + sequencer) per event
     * @param projectorStoreBytesPerEvent      bytes written to the projector's changelogs, checkpoints and tool requests per event
     * @param allTopicsBytesPerEvent           bytes written to all of Tether's topics per event (commands and events too)
     * @param bytesByTopic                     bytes written per topic in the window
     */
    record Window(long fromSeq, long events, double seconds, double projectorStreamMicrosPerEvent, double projectorCpuMicrosPerEvent,
            double sessionServiceCpuMicrosPerEvent, double projectorStoreBytesPerEvent, double allTopicsBytesPerEvent,
            Map<String, Long> bytesByTopic) {
    }

    /** All windows at one length. */
    record AtLength(int length, List<Window> windows) {

        Samples projectorCpu() {
            return Samples.of(windows.stream().map(Window::projectorStreamMicrosPerEvent).toList());
        }

        Samples storeBytes() {
            return Samples.of(windows.stream().map(Window::projectorStoreBytesPerEvent).toList());
        }
    }

    private final Rig rig;

    ConstantCost(Rig rig) {
        this.rig = rig;
    }

    List<AtLength> measure(List<Integer> lengths, int window, int repetitions, int eventBytes, int batch) throws Exception {
        NewEvent event = NewEvent.userMessage(AppendLoad.text(eventBytes));
        List<SessionWriter> writers = rig.load().sessions("cost", lengths.size(), lengths.size());
        long f0 = System.nanoTime();
        List<Long> last = new ArrayList<>(rig.load().fill(writers, Collections.nCopies(writers.size(), 0L), lengths, batch, List.of(event)));
        Bench.log("constant cost: filled sessions of %s events in %.0f s", lengths, (System.nanoTime() - f0) / 1e9);
        var windows = new ArrayList<List<Window>>();
        lengths.forEach(l -> windows.add(new ArrayList<>()));
        for (int rep = 0; rep < repetitions; rep++) {
            for (int i = 0; i < lengths.size(); i++) {
                Window w = window(writers.get(i), last.get(i), window, batch, event);
                last.set(i, w.fromSeq() + w.events());
                windows.get(i).add(w);
                Bench.log("constant cost at %d events: projector stream threads %.0f µs/event (process %.0f), %.0f store bytes/event",
                        w.fromSeq(), w.projectorStreamMicrosPerEvent(), w.projectorCpuMicrosPerEvent(), w.projectorStoreBytesPerEvent());
            }
        }
        var result = new ArrayList<AtLength>();
        for (int i = 0; i < lengths.size(); i++) {
            result.add(new AtLength(lengths.get(i), windows.get(i)));
        }
        return result;
    }

    private Window window(SessionWriter writer, long fromSeq, int events, int batch, NewEvent event) throws Exception {
        rig.awaitProjected();
        // the idle rate: commits and polls of a projector with nothing to do
        long idleStart = System.nanoTime();
        long idleStream = rig.projectorCpu().streamThreadNanos();
        long idleProjector = rig.projectorCpu().nanos();
        long idleSession = rig.sessionServiceCpu().nanos();
        Thread.sleep(1_000);
        double idleSeconds = (System.nanoTime() - idleStart) / 1e9;
        double streamIdleRate = (rig.projectorCpu().streamThreadNanos() - idleStream) / idleSeconds;
        double projectorIdleRate = (rig.projectorCpu().nanos() - idleProjector) / idleSeconds;
        double sessionIdleRate = (rig.sessionServiceCpu().nanos() - idleSession) / idleSeconds;

        Map<String, Long> before = rig.tetherTopicBytes();
        long t0 = System.nanoTime();
        long stream0 = rig.projectorCpu().streamThreadNanos();
        long projector0 = rig.projectorCpu().nanos();
        long session0 = rig.sessionServiceCpu().nanos();
        long last = fromSeq;
        long appended = 0;
        while (appended < events) {
            int n = (int) Math.min(batch, events - appended);
            var batchEvents = new NewEvent[n];
            java.util.Arrays.fill(batchEvents, event);
            long reached = rig.load().appendOrThrow(writer, batchEvents).lastSeq();
            appended += reached - last;
            last = reached;
        }
        rig.awaitProjected();
        double seconds = (System.nanoTime() - t0) / 1e9;
        long streamNanos = rig.projectorCpu().streamThreadNanos() - stream0;
        long projectorNanos = rig.projectorCpu().nanos() - projector0;
        long sessionNanos = rig.sessionServiceCpu().nanos() - session0;
        Map<String, Long> written = StoreSizes.delta(before, rig.tetherTopicBytes());
        long projectorBytes = written.entrySet().stream().filter(e -> Rig.isProjectorOutput(e.getKey())).mapToLong(Map.Entry::getValue).sum();
        return new Window(fromSeq, appended, seconds, perEvent(streamNanos, streamIdleRate, seconds, appended),
                perEvent(projectorNanos, projectorIdleRate, seconds, appended), perEvent(sessionNanos, sessionIdleRate, seconds, appended),
                (double) projectorBytes / appended, (double) StoreSizes.sum(written) / appended, written);
    }

    /** Microseconds of CPU per event, less what the idle process would have used in the same time (never below zero). */
    private static double perEvent(long nanos, double idleNanosPerSec, double seconds, long events) {
        return Math.max(0, nanos - idleNanosPerSec * seconds) / 1e3 / events;
    }
}
