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

    public long total() {
        return inputTokens + outputTokens;
    }
}
