package dev.tether.tools.sandbox;

import java.util.Objects;

/**
 * How a command ended.
 *
 * @param exitCode   the exit status of the command's first process; 128 + the signal's number when a signal ended
 *                   it, so 137 after a kill on timeout or cancellation
 * @param output     combined stdout and stderr, redacted, never null; when {@code truncated}, ends with a line
 *                   {@code [output truncated: N bytes not shown]}
 * @param timedOut   whether the timeout ended it (its whole process tree was killed)
 * @param cancelled  whether {@link RunningCommand#cancel()} ended it
 * @param truncated  whether output past the cap was discarded
 * @param durationMs from start until the end was seen, in milliseconds
 * @param redactions how many secrets were redacted from the output
 */
public record CommandResult(
        int exitCode, String output, boolean timedOut, boolean cancelled, boolean truncated, long durationMs,
        int redactions) {

    public CommandResult {
        Objects.requireNonNull(output, "output");
    }

    /** Whether it ran to the end by itself and exited with 0. */
    public boolean succeeded() {
        return exitCode == 0 && !timedOut && !cancelled;
    }
}
