package dev.tether.client;

/**
 * Tokens a model turn used, as its provider reported them.
 *
 * @param inputTokens  prompt tokens, not negative
 * @param outputTokens completion tokens, not negative
 */
public record TokenUsage(long inputTokens, long outputTokens) {

    public TokenUsage {
        if (inputTokens < 0 || outputTokens < 0) {
            throw new IllegalArgumentException("token counts must not be negative");
        }
    }

    /** Both counts; at most {@link Long#MAX_VALUE} (a checkpoint's totals may be large: the sum saturates, never wraps). */
    public long total() {
        long sum = inputTokens + outputTokens;
        return sum < 0 ? Long.MAX_VALUE : sum; // both are non-negative: only an overflow makes the sum negative
    }
}
