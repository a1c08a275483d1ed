package dev.tether.cli.output;

import java.io.PrintWriter;

/**
 * Progress of a long operation on stderr. On a terminal it rewrites one line (at most ten times a
 * second); otherwise (a pipe, a log file, a test) it prints a line at most once per its log
 * interval, so logs stay readable; {@link #force} prints at once (a count that changed).
 * {@link #done()} ends it, and so does {@link #close()}: in a {@code try}, a failure's line starts on a line of its own,
 * not after the progress it cut short. Not thread-safe.
 */
public final class Progress implements AutoCloseable {

    private static final long TERMINAL_INTERVAL_NANOS = 100_000_000L;

    private final PrintWriter err;
    private final String label;
    private final boolean interactive;
    private final long logIntervalNanos;
    private long lastShown;
    private String lastText;
    private int lastWidth;

    Progress(PrintWriter err, String label, boolean interactive, java.time.Duration logInterval) {
        this.err = err;
        this.label = label;
        this.interactive = interactive;
        this.logIntervalNanos = logInterval.toNanos();
    }

    /** Shows {@code text} unless something was shown very recently. */
    public void update(String text) {
        long now = System.nanoTime();
        long interval = interactive ? TERMINAL_INTERVAL_NANOS : logIntervalNanos;
        if (lastText != null && (now - lastShown < interval || (!interactive && text.equals(lastText)))) {
            return;
        }
        show(text, now);
    }

    /** Shows {@code text} now, e.g. a count that changed and must not be skipped. */
    public void force(String text) {
        show(text, System.nanoTime());
    }

    private void show(String text, long now) {
        String line = label + ": " + text;
        if (interactive) {
            err.print("\r" + line + " ".repeat(Math.max(0, lastWidth - line.length())));
            lastWidth = line.length();
        } else {
            err.println(line);
        }
        err.flush();
        lastShown = now;
        lastText = text;
    }

    /** Ends the progress line (on a terminal, moves to the next line), once. */
    public void done() {
        if (interactive && lastText != null) {
            err.println();
            err.flush();
        }
        lastText = null;
    }

    /** {@link #done()}. */
    @Override
    public void close() {
        done();
    }
}
