package dev.tether.tools.sandbox;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A command to run: {@code CommandRequest.in(workspace, "make test").withTimeout(Duration.ofMinutes(5))}.
 *
 * @param workspace where it runs: its working directory and {@code HOME}; never null
 * @param command   a {@code /bin/sh -c} script, with any secrets already resolved; never null, no NUL
 * @param timeout   how long it may run, or null for the runner's; positive. The runner caps it at its configured
 *                  timeout: a request can shorten that, not stretch it
 * @param redactor  the call's redactor, which redacts its output; never null
 */
public record CommandRequest(Workspace workspace, String command, Duration timeout, OutputRedactor redactor) {

    public CommandRequest {
        Objects.requireNonNull(workspace, "workspace");
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(redactor, "redactor");
        if (command.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("a command cannot hold a NUL character");
        }
        if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
    }

    /** {@code command} in {@code workspace}, with the default timeout and a redactor of its own. */
    public static CommandRequest in(Workspace workspace, String command) {
        return new CommandRequest(workspace, command, null, new OutputRedactor());
    }

    /** The timeout, if this request sets one. */
    public Optional<Duration> requestedTimeout() {
        return Optional.ofNullable(timeout);
    }

    public CommandRequest withTimeout(Duration timeout) {
        return new CommandRequest(workspace, command, timeout, redactor);
    }

    public CommandRequest withRedactor(OutputRedactor redactor) {
        return new CommandRequest(workspace, command, timeout, redactor);
    }

    /** Leaves the command out: with secrets resolved, it may hold their values. */
    @Override
    public String toString() {
        return "CommandRequest[" + workspace + ", timeout=" + timeout + "]";
    }
}
