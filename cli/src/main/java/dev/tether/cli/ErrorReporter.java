package dev.tether.cli;

import dev.tether.cli.output.Output;
import dev.tether.client.ApiError;
import dev.tether.client.TetherException;
import dev.tether.client.internal.MalformedAnswerException;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Turns every failure into one line on stderr: {@code tether: <what went wrong>} and exit status 1
 * for a failed command, {@code <command>: <what is wrong> (see '<command> --help')} and exit status 2
 * for a usage error. With {@code TETHER_DEBUG} on ({@link #debugOn}), a failure's stack trace follows its line. The line's control
 * characters are shown escaped ({@link Output#printable}): a service's message may quote stored data.
 */
final class ErrorReporter implements IExecutionExceptionHandler, IParameterExceptionHandler {

    private final boolean debug;

    ErrorReporter(boolean debug) {
        this.debug = debug;
    }

    /**
     * Whether {@code TETHER_DEBUG}'s value turns stack traces on: any value but none, an empty one, {@code 0},
     * {@code false}, {@code no} or {@code off} (in any case), so that {@code TETHER_DEBUG=0} turns them off as it reads.
     */
    static boolean debugOn(String value) {
        return value != null && !Set.of("", "0", "false", "no", "off").contains(value.strip().toLowerCase(Locale.ROOT));
    }

    @Override
    public int handleExecutionException(Exception e, CommandLine command, ParseResult parsed) {
        PrintWriter err = command.getErr();
        err.println("tether: " + Output.printable(oneLine(describe(e, command)))); // a service's message may hold stored data
        if (debug) {
            e.printStackTrace(err);
        }
        err.flush();
        return CommandLine.ExitCode.SOFTWARE;
    }

    @Override
    public int handleParseException(ParameterException e, String[] args) {
        CommandLine command = e.getCommandLine();
        String name = command.getCommandSpec().qualifiedName();
        String message = e.getMessage();
        if (e instanceof UnmatchedArgumentException unmatched) {
            message = unmatched(unmatched);
            List<String> suggestions = unmatched.getSuggestions();
            if (!suggestions.isEmpty()) {
                message += "; did you mean " + String.join(" or ", suggestions.stream().limit(3).toList()) + "?";
            }
        }
        PrintWriter err = command.getErr();
        err.println(name + ": " + Output.printable(oneLine(message)) + " (see '" + name + " --help')");
        err.flush();
        return command.getCommandSpec().exitCodeOnInvalidInput();
    }

    /**
     * Picocli's account of arguments it could not place, without echoing what follows an unknown option: that is most
     * often the option's value, and a mistyped {@code --token} is followed by a secret that would go to a terminal, a
     * CI log or a shell history pasted into an issue.
     */
    static String unmatched(UnmatchedArgumentException e) {
        List<String> arguments = e.getUnmatched();
        List<String> options = arguments.stream().filter(ErrorReporter::looksLikeOption)
                .map(a -> a.indexOf('=') > 0 ? a.substring(0, a.indexOf('=')) : a)
                .toList();
        if (options.isEmpty()) {
            return e.getMessage(); // a mistyped command or an extra positional argument: shown, to be recognised
        }
        int hidden = arguments.size() - options.size();
        return "Unknown option" + (options.size() == 1 ? "" : "s") + ": "
                + String.join(", ", options.stream().map(o -> "'" + o + "'").toList())
                + (hidden == 0 ? "" : " (" + hidden + " more argument" + (hidden == 1 ? "" : "s") + " not shown: what follows an"
                + " unknown option may be its value, a secret)")
                + (options.stream().allMatch(o -> o.startsWith("-")) ? "" : "; options start with '--', not a typographic dash");
    }

    /**
     * An option, or one typed with a typographic dash ({@code —token}, {@code –json}, as word processors and chat apps turn
     * {@code --} into): its value is as secret as a real option's.
     */
    private static boolean looksLikeOption(String argument) {
        if (argument.isEmpty()) {
            return false;
        }
        int first = argument.codePointAt(0);
        return Character.getType(first) == Character.DASH_PUNCTUATION || first == '\u2212'; // '-', '‐', '–', '—'..., the minus sign
    }

    /** What went wrong, in words a user can act on. */
    static String describe(Throwable e, CommandLine command) {
        if (e instanceof CliException) {
            return e.getMessage();
        }
        if (e instanceof TetherException t) {
            return describe(t, command);
        }
        if (e instanceof IllegalArgumentException || e instanceof IllegalStateException) {
            return e.getMessage() == null ? e.toString() : e.getMessage();
        }
        if (e instanceof org.apache.kafka.common.KafkaException) {
            return "Kafka: " + withCauses(e); // the clients wrap the reason: "Failed to construct kafka consumer", then why
        }
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }

    private static String describe(TetherException t, CommandLine command) {
        String message = t.getMessage() == null ? "the request failed" : t.getMessage();
        Throwable cause = networkCause(t);
        if (t.error().isEmpty() && cause != null) {
            String label = cause instanceof ConnectException ? "connection refused"
                    : cause instanceof HttpConnectTimeoutException ? "connecting timed out" : "no answer in time (see --timeout)";
            message = message.replace(cause.toString(), label);
            if (!(cause instanceof HttpTimeoutException) || cause instanceof HttpConnectTimeoutException) {
                message += "; is Tether running (bin/run)? The services' URLs are set with --session-url, --projector-url and --approvals-url";
            }
        }
        if (t instanceof MalformedAnswerException) { // a 2xx the SDK cannot read: said without naming the URL it came from
            message = "a service answered what is not Tether's API (" + message + "); are --session-url, --projector-url and "
                    + "--approvals-url Tether's services, not a proxy's login page or another server?";
        }
        ApiError error = t.error().orElse(null);
        if (error != null && error.status() == 403) {
            Role role = roleOf(command);
            if (role != null) {
                message += "; this needs " + role.needs();
            }
        }
        if (t.outcomeUnknown()) {
            message += "; look before you try again";
        }
        return message;
    }

    /** The role of the command's top-level group ({@code sessions}, {@code approvals}…), if it has one. */
    static Role roleOf(CommandLine command) {
        CommandLine top = command;
        while (top.getParent() != null && top.getParent().getParent() != null) {
            top = top.getParent();
        }
        return switch (top.getCommandName()) {
            case "sessions", "context", "recovery" -> Role.AGENT;
            case "approvals" -> Role.APPROVER;
            case "versions" -> Role.OPERATOR;
            default -> null;
        };
    }

    /** The connection failure or timeout behind {@code e}, if that is what it is. */
    private static Throwable networkCause(Throwable e) {
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            if (c instanceof ConnectException || c instanceof HttpTimeoutException) {
                return c;
            }
        }
        return null;
    }

    /** The messages of {@code e} and its causes, each said once. */
    private static String withCauses(Throwable e) {
        var messages = new java.util.ArrayList<String>();
        for (Throwable c = e; c != null && messages.size() < 5; c = c.getCause() == c ? null : c.getCause()) {
            String m = c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage();
            if (messages.stream().noneMatch(seen -> seen.contains(m))) {
                messages.add(m);
            }
        }
        return String.join(": ", messages);
    }

    /** Several lines (a list of problems, a service's multi-line message) as one. */
    static String oneLine(String message) {
        return message == null ? "failed"
                : message.replaceAll(":\\s*\\R\\s*- ", ": ").replaceAll("\\s*\\R\\s*- ", "; ").replaceAll("\\s*\\R\\s*", " ").trim();
    }
}
