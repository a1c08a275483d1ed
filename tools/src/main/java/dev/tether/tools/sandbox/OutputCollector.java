package dev.tether.tools.sandbox;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;

/**
 * Drains a command's output pipe on a thread of its own, keeping the first {@code cap} bytes and reading and
 * discarding the rest, so that the command never blocks on a full pipe.
 *
 * <p>Thread-safe: {@link #text()} may be called while the pipe is still being drained.
 */
final class OutputCollector {

    private static final int CHUNK = 8192;

    private final InputStream pipe;
    private final int cap;
    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
    private final Thread drainer;
    private long total;

    private OutputCollector(InputStream pipe, int cap, String threadName) {
        this.pipe = pipe;
        this.cap = cap;
        // a daemon: where a process escaped the kill (no namespaces), it may hold the pipe open after the command
        this.drainer = new Thread(this::drain, threadName);
        this.drainer.setDaemon(true);
    }

    /** Starts draining {@code pipe}. */
    static OutputCollector start(InputStream pipe, int cap, String threadName) {
        var collector = new OutputCollector(pipe, cap, threadName);
        collector.drainer.start();
        return collector;
    }

    private void drain() {
        byte[] chunk = new byte[CHUNK];
        try (pipe) {
            for (int n = pipe.read(chunk); n >= 0; n = pipe.read(chunk)) {
                synchronized (this) {
                    kept.write(chunk, 0, Math.min(n, cap - kept.size()));
                    total += n;
                }
            }
        } catch (IOException e) {
            // the pipe was closed under us: what was read is all there is
        }
    }

    /**
     * Waits until every writer has closed the pipe.
     *
     * @return whether it was closed within {@code limit}
     */
    boolean awaitEnd(Duration limit) throws InterruptedException {
        drainer.join(Math.max(1, limit.toMillis()));
        return !drainer.isAlive();
    }

    /**
     * What was kept so far, as UTF-8 (malformed bytes become U+FFFD). Output past the cap is cut at the last line break
     * before it (else the last space or tab, else all of it is dropped), so that a secret cut in two by the cap is
     * dropped whole rather than half shown.
     */
    synchronized Captured text() {
        byte[] bytes = kept.toByteArray();
        if (total <= bytes.length) {
            return new Captured(new String(bytes, UTF_8), 0);
        }
        int end = lastIndexOf(bytes, (byte) '\n');
        if (end < 0) {
            end = Math.max(lastIndexOf(bytes, (byte) ' '), lastIndexOf(bytes, (byte) '\t'));
        }
        int keptLength = end + 1;
        return new Captured(new String(bytes, 0, keptLength, UTF_8), total - keptLength);
    }

    private static int lastIndexOf(byte[] bytes, byte b) {
        for (int i = bytes.length - 1; i >= 0; i--) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return -1;
    }

    /**
     * @param text           the output kept
     * @param discardedBytes how many bytes of output were discarded; 0 when none were
     */
    record Captured(String text, long discardedBytes) {
        boolean truncated() {
            return discardedBytes > 0;
        }
    }
}
