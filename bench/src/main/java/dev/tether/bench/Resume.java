package dev.tether.bench;

import dev.tether.client.ClaimRequest;
import dev.tether.client.ContextFormat;
import dev.tether.client.ContextQuery;
import dev.tether.client.NewEvent;
import dev.tether.client.SessionWriter;
import java.util.Arrays;
import java.util.List;

/**
 * Figure 7: what a worker taking over a long session waits for: the claim (a new epoch, recorded as
 * {@code session_resumed}), the recovery report and the model context, one after the other as a harness
 * calls them, repeated by a new worker each round.
 */
final class Resume {

    /**
     * @param sessionLength events in the session when the first round started
     * @param compacted     whether the session had been compacted (all but its last 100 events)
     * @param maxTokens     the context's {@code maxTokens} (the model's window), or null for the whole context
     * @param rounds        claim + recovery + context rounds
     * @param p50Ms         median of a whole round
     * @param p99Ms         99th percentile of a whole round
     * @param maxMs         slowest round
     * @param claimP50Ms    median of the claim alone
     * @param recoveryP50Ms median of the recovery report alone
     * @param contextP50Ms  median of the context alone
     * @param contextChars  characters of the last context's messages (JSON)
     * @param claimP99Ms    99th percentile of the claim alone
     * @param recoveryP99Ms 99th percentile of the recovery report alone
     * @param contextP99Ms  99th percentile of the context alone
     * @param claimMs       every claim's time, in round order
     * @param recoveryMs    every recovery report's time, in round order
     * @param contextMs     every context's time, in round order
     * @param totalMs       every round's time, in round order
     */
    record Run(long sessionLength, boolean compacted, Integer maxTokens, int rounds, double p50Ms, double p99Ms, double maxMs, double claimP50Ms, double recoveryP50Ms,
            double contextP50Ms, long contextChars, double claimP99Ms, double recoveryP99Ms, double contextP99Ms, double[] claimMs,
            double[] recoveryMs, double[] contextMs, double[] totalMs) {

        /** The target for this shape; none for a whole context larger than any model's window. */
        String target() {
            return compacted ? "p99 ≤ 50 ms" : maxTokens == null ? "— (no model takes it)" : "p99 ≤ 100 ms";
        }

        /** How the session and its context were read, for the table. */
        String shape() {
            if (compacted) {
                return "compacted but for the last " + AFTER_COMPACTION;
            }
            return maxTokens == null ? "never compacted" : String.format(java.util.Locale.ROOT, "never compacted, context within maxTokens %,d "
                    + "(the model's window)", maxTokens);
        }
    }

    /** The window of the benchmark's model (none is set for it: the projector's {@code tether.projector.default-window}). */
    static final int MODEL_WINDOW = 128_000;

    private final Rig rig;

    Resume(Rig rig) {
        this.rig = rig;
    }

    /**
     * Rounds on a session of {@code length} events, as it is: with its whole context, then with the context asked for
     * within the model's window ({@code maxTokens}, the oldest exchanges left out); then again once it has been compacted
     * (a {@code context_compacted} event through all but the last {@value #AFTER_COMPACTION} events, which a harness
     * appends when the projector advises it): the context is rendered and its tokens counted from the compaction point on.
     */
    List<Run> measure(int length, int rounds, int eventBytes, int batch) throws Exception {
        SessionWriter writer = rig.load().sessions("resume", 1, 1).get(0);
        NewEvent event = NewEvent.userMessage(AppendLoad.text(eventBytes));
        long last = rig.load().fill(List.of(writer), List.of(2L), List.of(length), batch, List.of(event)).get(0);
        Run uncompacted = rounds(writer.sessionId(), last, rounds, false, null);
        Run windowed = rounds(writer.sessionId(), last, rounds, false, MODEL_WINDOW);

        try {
            return List.of(uncompacted, windowed, compacted(writer.sessionId(), rounds, event, batch));
        } catch (RuntimeException e) {
            Bench.log("resume of the compacted session not measured: %s", e);
            return List.of(uncompacted, windowed);
        }
    }

    private Run compacted(String sessionId, int rounds, NewEvent event, int batch) throws Exception {
        // a new worker appends the compaction, as the last resumer would
        SessionWriter compactor = rig.client().writer(rig.client().claim(sessionId, ClaimRequest.of("compactor", "v1")).claimedOrThrow());
        long through = compactor.lastSeq();
        rig.load().appendOrThrow(compactor, NewEvent.contextCompacted(through, "The user sent " + through + " messages of text.",
                List.of(1L, through)));
        long last = rig.load().fill(List.of(compactor), List.of(through + 1), List.of((int) through + 1 + AFTER_COMPACTION), batch,
                List.of(event)).get(0);
        return rounds(sessionId, last, rounds, true, null);
    }

    static final int AFTER_COMPACTION = 100;

    private Run rounds(String sessionId, long length, int rounds, boolean compacted, Integer maxTokens) throws Exception {
        ContextQuery query = maxTokens == null ? ContextQuery.of(ContextFormat.OPENAI) : ContextQuery.of(ContextFormat.OPENAI).withMaxTokens(maxTokens);
        rig.awaitProjected();
        double[] total = new double[rounds];
        double[] claim = new double[rounds];
        double[] recovery = new double[rounds];
        double[] context = new double[rounds];
        long contextChars = 0;
        for (int i = 0; i < rounds; i++) {
            long t0 = System.nanoTime();
            rig.client().claim(sessionId, ClaimRequest.of("resumer-" + i, "v1")).claimedOrThrow();
            long t1 = System.nanoTime();
            rig.client().recovery(sessionId).orElseThrow(() -> new IllegalStateException("no recovery report of " + sessionId));
            long t2 = System.nanoTime();
            var ctx = rig.client().context(sessionId, query)
                    .orElseThrow(() -> new IllegalStateException("no context of " + sessionId));
            long t3 = System.nanoTime();
            total[i] = (t3 - t0) / 1e6;
            claim[i] = (t1 - t0) / 1e6;
            recovery[i] = (t2 - t1) / 1e6;
            context[i] = (t3 - t2) / 1e6;
            contextChars = ctx.messagesJson().length();
        }
        return new Run(length, compacted, maxTokens, rounds, median(total), p99(total), Arrays.stream(total).max().orElseThrow(), median(claim),
                median(recovery), median(context), contextChars, p99(claim), p99(recovery), p99(context), claim, recovery, context, total);
    }

    private static double p99(double[] values) {
        double[] s = values.clone();
        Arrays.sort(s);
        return pct(s, 0.99);
    }

    private static double median(double[] values) {
        double[] s = values.clone();
        Arrays.sort(s);
        return pct(s, 0.5);
    }

    /** Nearest-rank percentile of sorted values. */
    static double pct(double[] sorted, double q) {
        int rank = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(rank, sorted.length - 1))];
    }
}
