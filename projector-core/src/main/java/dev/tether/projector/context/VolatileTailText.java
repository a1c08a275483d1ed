package dev.tether.projector.context;

import dev.tether.projector.domain.VolatileTail;
import java.util.Objects;
import java.util.StringJoiner;

/**
 * The text of the volatile tail, the last message of every context, e.g.
 *
 * <pre>
 * [session state]
 * status: ACTIVE
 * last seq: 12
 * step: 3
 * tokens used: 1200 input, 340 output
 * as of: 2026-01-01T10:00:00Z
 * waiting for: approval of write_file
 * open work:
 * - 2. Write the fix (IN_PROGRESS)
 * </pre>
 *
 * <p>{@code waiting for} appears only when something is pending; {@code open work: none} stands for an
 * empty list. Pure and thread-safe.
 */
final class VolatileTailText {

    /** The headline of the tail; nothing before the tail contains it. */
    static final String HEADLINE = "[session state]";

    private VolatileTailText() {}

    static String of(VolatileTail tail) {
        var lines = new StringJoiner("\n");
        lines.add(HEADLINE);
        lines.add("status: " + Objects.toString(tail.status(), "unknown"));
        lines.add("last seq: " + tail.lastSeq());
        lines.add("step: " + tail.step());
        lines.add("tokens used: " + tail.inputTokens() + " input, " + tail.outputTokens() + " output");
        lines.add("as of: " + Objects.toString(tail.asOf(), "unknown"));
        if (tail.pendingAction() != null) {
            lines.add("waiting for: " + tail.pendingAction());
        }
        lines.add(openWork(tail));
        return lines.toString();
    }

    private static String openWork(VolatileTail tail) {
        if (tail.openWork().isEmpty()) {
            return "open work: none";
        }
        var lines = new StringJoiner("\n- ", "open work:\n- ", "");
        tail.openWork().forEach(lines::add);
        return lines.toString();
    }
}
