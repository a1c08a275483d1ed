package dev.tether.core.event;

/**
 * Model token counters. Sums saturate at {@link Long#MAX_VALUE} rather than wrap: a count is the client's, and one near
 * the largest long must neither turn a session's total negative nor make a fold throw (the sequencer refuses a turn of
 * more than {@link #MAX_PER_TURN} per counter, but a log may hold one from before it did).
 */
public record TokenUsage(long inputTokens, long outputTokens) {

    public static final TokenUsage NONE = new TokenUsage(0, 0);

    /** The most tokens of either kind one turn may report: far above any model's, far below overflowing a sum. */
    public static final long MAX_PER_TURN = 1_000_000_000_000L;

    public TokenUsage {
        Fields.nonNegative(inputTokens, "inputTokens");
        Fields.nonNegative(outputTokens, "outputTokens");
    }

    public long total() {
        return saturated(inputTokens, outputTokens);
    }

    public TokenUsage plus(TokenUsage other) {
        return new TokenUsage(saturated(inputTokens, other.inputTokens), saturated(outputTokens, other.outputTokens));
    }

    /** Why this turn's usage is more than a turn may report, or null if it is not. */
    public String tooLarge() {
        if (inputTokens > MAX_PER_TURN || outputTokens > MAX_PER_TURN) {
            return "inputTokens and outputTokens must each be at most " + MAX_PER_TURN + "; got " + inputTokens + " and " + outputTokens;
        }
        return null;
    }

    private static long saturated(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum; // both are non-negative: only an overflow makes the sum negative
    }
}
