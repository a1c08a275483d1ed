package dev.tether.core.event;

/** Model token counters. */
public record TokenUsage(long inputTokens, long outputTokens) {

    public static final TokenUsage NONE = new TokenUsage(0, 0);

    public TokenUsage {
        Fields.nonNegative(inputTokens, "inputTokens");
        Fields.nonNegative(outputTokens, "outputTokens");
    }

    public long total() {
        return inputTokens + outputTokens;
    }

    public TokenUsage plus(TokenUsage other) {
        return new TokenUsage(inputTokens + other.inputTokens, outputTokens + other.outputTokens);
    }
}
