package dev.tether.tools.sandbox;

import java.io.File;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Runs {@code run_command}: one {@code /bin/sh -c} script in a workspace, isolated as far as the host allows.
 *
 * <ul>
 *   <li>The working directory and {@code HOME} are the workspace; stdin is {@code /dev/null}, so no TTY; the
 *       environment is {@code PATH}, {@code HOME}, {@code LANG=C.UTF-8} and the configured variables, nothing of the
 *       executor's.
 *   <li>stdout and stderr are combined and drained as the command runs; past the cap they are discarded and a marker
 *       ends the output. The output is redacted (see {@link OutputRedactor}) before it leaves the runner.
 *   <li>On timeout or {@link RunningCommand#cancel()}, every process the command started is killed with SIGKILL,
 *       double-forked daemons and sleeping grandchildren included: see {@link CommandLine} for how.
 *   <li>Limits: address space ({@code prlimit --as}, a virtual-memory cap) and, in namespaces, the number of
 *       processes ({@code prlimit --nproc}, so a fork bomb stalls at the limit until the timeout).
 *   <li>Namespaces ({@link Isolation.Namespaces}): no network (an empty network namespace) unless configured, an own
 *       PID namespace, and root inside a user namespace that is an unprivileged user outside: the executor's user, or
 *       the configured sandbox user when the executor is root. Such a command cannot write files outside its workspace
 *       that its user could not write anyway, see or signal the host's processes, or raise its limits. Its own mount
 *       namespace hides the directory holding the workspaces behind an empty tmpfs with only its own workspace bound
 *       back, so it cannot read or change another session's workspace, by relative or absolute path, although every
 *       workspace belongs to the same user (see {@link CommandLine}).
 *   <li>Where namespaces cannot be created ({@link Isolation.Unavailable}), commands are refused with an
 *       {@link IsolationUnavailableException}: the runner fails closed. Only with
 *       {@link RunnerConfig#allowNetworkWhenIsolationUnavailable()} do they run there: with the host's network, as the
 *       executor's user, without a process limit, <b>with every other session's workspace readable and writable</b>
 *       (they all belong to that user), and killed by process group and descendants, which a daemon that calls
 *       {@code setsid} and double-forks escapes. Allow it only where sessions trust each other.
 * </ul>
 *
 * <p>Thread-safe: commands may run concurrently.
 */
public final class CommandRunner {

    /** {@code PATH} unless configured. */
    public static final String DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    /** {@code LANG} unless configured. */
    public static final String DEFAULT_LANG = "C.UTF-8";

    private final RunnerConfig config;
    private final Isolation isolation;

    /**
     * @param config    how to run commands, never null
     * @param isolation what this host allows, as {@link Isolation#detect} found; never null
     */
    public CommandRunner(RunnerConfig config, Isolation isolation) {
        this.config = Objects.requireNonNull(config, "config");
        this.isolation = Objects.requireNonNull(isolation, "isolation");
    }

    /** A runner with the isolation {@link Isolation#detect} finds on this host for {@code config}. */
    public static CommandRunner detecting(RunnerConfig config) {
        return new CommandRunner(config, Isolation.detect(config));
    }

    public RunnerConfig config() {
        return config;
    }

    /** How commands are isolated; its {@link Isolation#commandUser()} must own the workspaces. */
    public Isolation isolation() {
        return isolation;
    }

    /**
     * Starts a command. The configured environment's values are registered with the request's redactor. It runs for
     * the request's timeout, at most the configured one ({@link RunnerConfig#timeout()}).
     *
     * @throws IsolationUnavailableException where namespaces are unavailable and running unisolated is not allowed
     * @throws IllegalArgumentException      if the workspace is not owned by {@link Isolation#commandUser()}
     * @throws IOException                   if the process cannot be started
     */
    public RunningCommand start(CommandRequest request) throws IsolationUnavailableException, IOException {
        if (isolation instanceof Isolation.Unavailable unavailable && !config.allowNetworkWhenIsolationUnavailable()) {
            throw new IsolationUnavailableException(unavailable.reason());
        }
        Workspace workspace = request.workspace();
        if (!workspace.owner().equals(isolation.commandUser())) {
            throw new IllegalArgumentException("the workspace belongs to " + workspace.owner() + " but commands run as "
                    + isolation.commandUser() + ": open workspaces for isolation().commandUser()");
        }
        request.redactor().registerEnvironment(config.environment());
        var builder = new ProcessBuilder(CommandLine.of(isolation, config, workspace.root()))
                .directory(workspace.root().toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectErrorStream(true);
        Map<String, String> environment = builder.environment();
        environment.clear();
        environment.put("PATH", DEFAULT_PATH);
        environment.put("LANG", DEFAULT_LANG);
        environment.putAll(config.environment());
        environment.put("HOME", workspace.root().toString());
        CommandLine.putCommand(environment, request.command());
        long startNanos = System.nanoTime();
        Process process = builder.start();
        var output = OutputCollector.start(process.getInputStream(), config.outputCapBytes(),
                "tether-command-output-" + process.pid());
        return RunningCommand.watch(process, output, request.redactor(),
                timeoutOf(request), startNanos);
    }

    /** The request's timeout if it asks for one, capped at the configured one: a call can shorten it, never stretch it. */
    Duration timeoutOf(CommandRequest request) {
        return request.requestedTimeout().filter(requested -> requested.compareTo(config.timeout()) < 0)
                .orElse(config.timeout());
    }

    /**
     * Runs a command to its end: {@link #start} then {@link RunningCommand#await()}.
     *
     * @throws InterruptedException if interrupted while waiting; the command is then killed
     */
    public CommandResult run(CommandRequest request)
            throws IsolationUnavailableException, IOException, InterruptedException {
        return start(request).await();
    }
}
