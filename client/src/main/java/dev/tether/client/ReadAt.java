package dev.tether.client;

import java.util.OptionalLong;

/**
 * Which state of a projection to read: the {@link #latest()}; as it was at a past seq
 * ({@link #seq(long)}, the same fold stopped there: time travel); or the latest once it has folded at
 * least a seq ({@link #atLeast(long)}: read your own writes — the projector follows the
 * session-service a moment later, and waits for it). Immutable.
 */
public final class ReadAt {

    private static final ReadAt LATEST = new ReadAt(null, null);

    private final Long atSeq;
    private final Long minSeq;

    private ReadAt(Long atSeq, Long minSeq) {
        this.atSeq = atSeq;
        this.minSeq = minSeq;
    }

    /** What the projector has now. */
    public static ReadAt latest() {
        return LATEST;
    }

    /** As it was right after {@code seq} (from 1). */
    public static ReadAt seq(long seq) {
        if (seq < 1) {
            throw new IllegalArgumentException("seq starts at 1, not " + seq);
        }
        return new ReadAt(seq, null);
    }

    /** The latest, once the projection has folded {@code seq}: e.g. the {@code lastSeq} an append returned. */
    public static ReadAt atLeast(long seq) {
        if (seq < 1) {
            throw new IllegalArgumentException("seq starts at 1, not " + seq);
        }
        return new ReadAt(null, seq);
    }

    /** The past seq asked for; empty for the latest. */
    public OptionalLong atSeq() {
        return atSeq == null ? OptionalLong.empty() : OptionalLong.of(atSeq);
    }

    /** The seq the projection must have folded; empty when any state will do. */
    public OptionalLong minSeq() {
        return minSeq == null ? OptionalLong.empty() : OptionalLong.of(minSeq);
    }

    @Override
    public String toString() {
        return atSeq != null ? "ReadAt[seq " + atSeq + "]" : minSeq != null ? "ReadAt[at least " + minSeq + "]" : "ReadAt[latest]";
    }
}
