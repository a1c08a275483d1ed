package dev.tether.tools;

/**
 * A text that throws {@link DeadlineExceeded} when read past a deadline. {@code java.util.regex} reads its input
 * through {@link #charAt}, so a regex that backtracks catastrophically on it stops at the deadline instead of running
 * for hours. The clock is read every 4096 reads. Not thread-safe.
 */
final class DeadlineCharSequence implements CharSequence {

    private static final int CHECK_EVERY = 4096;

    private final CharSequence text;
    private final long deadlineNanos;
    private int reads;

    /** @param deadlineNanos a {@link System#nanoTime()} value */
    DeadlineCharSequence(CharSequence text, long deadlineNanos) {
        this.text = text;
        this.deadlineNanos = deadlineNanos;
    }

    /**
     * Throws {@link DeadlineExceeded} if the deadline has passed. For what reads no text, or little of it at a time: a
     * search of many short lines reads each through a text of its own, whose count never reaches {@code CHECK_EVERY}.
     */
    static void check(long deadlineNanos) {
        if (System.nanoTime() - deadlineNanos > 0) {
            throw new DeadlineExceeded();
        }
    }

    @Override
    public char charAt(int index) {
        if (++reads % CHECK_EVERY == 0) {
            check(deadlineNanos);
        }
        return text.charAt(index);
    }

    @Override
    public int length() {
        return text.length();
    }

    @Override
    public CharSequence subSequence(int start, int end) {
        return new DeadlineCharSequence(text.subSequence(start, end), deadlineNanos);
    }

    @Override
    public String toString() {
        return text.toString();
    }

    /** The deadline passed while the text was being read. */
    static final class DeadlineExceeded extends RuntimeException {
        DeadlineExceeded() {
            super(null, null, false, false); // thrown as control flow: no stack trace needed
        }
    }
}
