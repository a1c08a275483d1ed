package dev.tether.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.tools.sandbox.CommandRequest;
import dev.tether.tools.sandbox.CommandResult;
import dev.tether.tools.sandbox.CommandRunner;
import dev.tether.tools.sandbox.IsolationUnavailableException;
import dev.tether.tools.sandbox.RunningCommand;
import dev.tether.tools.sandbox.Workspace;
import java.io.IOException;
import java.time.Duration;
import java.util.Set;

/**
 * {@code run_command {command, timeoutSeconds?}}: runs a {@code /bin/sh -c} script in the workspace with the
 * context's {@link CommandRunner} (isolation, limits and redaction are its). {@code secret://name} references in the
 * command are resolved right before it runs. The output is the command's combined output followed by a line with how
 * it ended; a non-zero exit or a timeout is an ERROR result, a cancellation a CANCELLED one. {@code timeoutSeconds}
 * runs from 1 to {@value #MAX_TIMEOUT_SECONDS} and can only shorten the runner's configured timeout, never stretch
 * it (see {@link CommandRunner#start}); without it the configured timeout applies. An approver is
 * {@linkplain #shown shown} the command exactly as written, references unresolved.
 *
 * <p>Neither idempotent nor reconcilable: a command's effects cannot be proven, so an interrupted call is
 * {@link Reconciliation.Unknown}. Stateless.
 */
public final class RunCommandTool implements Tool {

    public static final String NAME = "run_command";
    public static final int MAX_TIMEOUT_SECONDS = 3600;

    private static final Set<String> ARGUMENTS = Set.of("command", "timeoutSeconds");

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean mutating() {
        return true;
    }

    @Override
    public boolean idempotent() {
        return false;
    }

    /**
     * The {@code /bin/sh -c} script exactly as the call gives it, whole, with its {@code secret://} references as
     * written: what runs, but for the references' values.
     */
    @Override
    public String shown(Workspace workspace, JsonNode arguments) throws ToolException {
        return Call.of(arguments).command();
    }

    @Override
    public ToolOutput execute(ToolContext context, JsonNode arguments) throws ToolException {
        Call call = Call.of(arguments);
        var request = CommandRequest.in(context.workspace(), context.resolveSecrets("command", call.command()))
                .withRedactor(context.redactor());
        if (call.timeoutSeconds() > 0) {
            request = request.withTimeout(Duration.ofSeconds(call.timeoutSeconds()));
        }
        if (context.cancellation().isCancelled()) {
            return context.output(ToolOutput.Status.CANCELLED, "[run_command: cancelled before it started]\n");
        }
        RunningCommand running;
        try {
            running = context.runner().start(request);
        } catch (IsolationUnavailableException e) {
            throw ToolException.refused(e.getMessage(), e);
        } catch (IOException e) {
            throw ToolException.failed("cannot start the command: " + e.getClass().getSimpleName(), e);
        }
        CancellationToken.Registration cancelOnInterrupt = context.cancellation().onCancel(running::cancel);
        try {
            return output(context, running.await());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // await() killed the command
            return context.output(ToolOutput.Status.CANCELLED, "[run_command: interrupted; the command was killed]\n");
        } finally {
            cancelOnInterrupt.close();
        }
    }

    private static ToolOutput output(ToolContext context, CommandResult result) {
        String separator = result.output().isEmpty() || result.output().endsWith("\n") ? "" : "\n";
        String content = result.output() + separator + ending(result);
        ToolOutput.Status status = result.cancelled() ? ToolOutput.Status.CANCELLED
                : result.succeeded() ? ToolOutput.Status.OK
                : ToolOutput.Status.ERROR;
        return context.output(status, content);
    }

    private static String ending(CommandResult result) {
        if (result.cancelled()) {
            return "[run_command: cancelled after " + result.durationMs() + " ms; the command and every process it "
                    + "started were killed]\n";
        }
        if (result.timedOut()) {
            return "[run_command: timed out after " + result.durationMs() + " ms; the command and every process it "
                    + "started were killed]\n";
        }
        return "[run_command: exit code " + result.exitCode() + " after " + result.durationMs() + " ms]\n";
    }

    @Override
    public Reconciliation reconcile(ToolContext context, JsonNode arguments, LedgerEntry started) {
        return new Reconciliation.Unknown("run_command: a command's effects cannot be proven; it may have run in full, "
                + "in part or not at all. Inspect the workspace before running it again");
    }

    /**
     * A call's arguments, checked: what {@link #shown} shows is what {@link #execute} runs.
     *
     * @param command        the script, {@code secret://} references unresolved
     * @param timeoutSeconds the timeout asked for, or 0 for the runner's default
     */
    private record Call(String command, int timeoutSeconds) {

        static Call of(JsonNode arguments) throws ToolException {
            ToolArguments args = ToolArguments.of(arguments, ARGUMENTS);
            String command = args.nonEmptyString("command");
            if (command.indexOf('\0') >= 0) {
                throw ToolException.invalidArgument("command", "must not hold a NUL character");
            }
            return new Call(command, args.optionalInt("timeoutSeconds", 0, 1, MAX_TIMEOUT_SECONDS));
        }
    }
}
