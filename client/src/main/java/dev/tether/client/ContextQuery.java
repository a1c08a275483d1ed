package dev.tether.client;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * Which model context to read: its format, which state of the session ({@link ReadAt}), and
 * optionally a token limit (the oldest exchanges after the compaction point are left out to fit).
 *
 * <pre>{@code
 * ContextQuery.of(ContextFormat.ANTHROPIC).at(ReadAt.atLeast(appended.lastSeq())).withMaxTokens(100_000)
 * }</pre>
 *
 * Immutable.
 */
public final class ContextQuery {

    private final ContextFormat format;
    private final ReadAt at;
    private final Integer maxTokens;

    private ContextQuery(ContextFormat format, ReadAt at, Integer maxTokens) {
        this.format = Objects.requireNonNull(format, "format");
        this.at = Objects.requireNonNull(at, "at");
        this.maxTokens = maxTokens;
    }

    public static ContextQuery of(ContextFormat format) {
        return new ContextQuery(format, ReadAt.latest(), null);
    }

    public ContextQuery at(ReadAt state) {
        return new ContextQuery(format, state, maxTokens);
    }

    public ContextQuery withMaxTokens(int tokens) {
        if (tokens < 1) {
            throw new IllegalArgumentException("maxTokens must be at least 1, not " + tokens);
        }
        return new ContextQuery(format, at, tokens);
    }

    public ContextFormat format() {
        return format;
    }

    public ReadAt at() {
        return at;
    }

    public OptionalInt maxTokens() {
        return maxTokens == null ? OptionalInt.empty() : OptionalInt.of(maxTokens);
    }

    @Override
    public String toString() {
        return "ContextQuery[" + format.wireName() + ", " + at + (maxTokens == null ? "" : ", maxTokens=" + maxTokens) + "]";
    }
}
