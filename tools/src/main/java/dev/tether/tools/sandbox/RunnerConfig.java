package dev.tether.tools.sandbox;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * How {@link CommandRunner} runs commands. Start from {@link #defaults()} and change what differs with the
 * {@code with…} copies: {@code RunnerConfig.defaults().withTimeout(Duration.ofSeconds(30))}.
 *
 * @param timeout            how long a command may run before its whole process tree is killed; a call may ask for a
 *                           shorter timeout, never a longer one (the operator's limit, not the model's); positive
 * @param outputCapBytes     how much combined stdout and stderr is kept; the rest is read and discarded; positive
 * @param memoryLimitBytes   the address-space limit of every process ({@code prlimit --as}): a cap on virtual memory,
 *                           not on resident memory, so programs that reserve much more than they use (a JVM, Go
 *                           binaries, sanitizer builds) need a higher one; positive
 * @param maxProcesses       how many processes and threads a command may have at once ({@code prlimit --nproc}, which
 *                           the command's own user namespace makes a per-command count); positive
 * @param networkAccess      whether commands may use the network; false gives each command an empty network
 *                           namespace, with not even a working loopback
 * @param allowNetworkWhenIsolationUnavailable where namespaces cannot be created ({@link Isolation.Unavailable}),
 *                           whether to run commands anyway: without network isolation, without a PID namespace
 *                           (killing a tree is then best effort), as the executor's own user and without hiding
 *                           other sessions' workspaces, which a command can then read and change. False, the
 *                           default, refuses every command there
 * @param environment        variables given to every command besides {@code PATH}, {@code HOME} (the workspace) and
 *                           {@code LANG}; may replace {@code PATH} and {@code LANG}, not {@code HOME} or {@code TETHER_COMMAND} (which
 *                           passes the command to its shell, see {@link CommandLine}). Their values
 *                           are redacted from output (see {@link OutputRedactor})
 * @param sandboxUser        whom commands run as when the executor runs as root, and who owns the workspaces then;
 *                           not root, since the kernel does not apply the process limit to root
 */
public record RunnerConfig(
        Duration timeout,
        int outputCapBytes,
        long memoryLimitBytes,
        int maxProcesses,
        boolean networkAccess,
        boolean allowNetworkWhenIsolationUnavailable,
        Map<String, String> environment,
        SandboxUser sandboxUser,
        List<Path> hiddenPaths,
        boolean privateTmp) {

    /** The default timeout: 60 s. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);
    /** The default output cap: 1 MiB. */
    public static final int DEFAULT_OUTPUT_CAP_BYTES = 1024 * 1024;
    /** The default address-space limit: 1 GiB. */
    public static final long DEFAULT_MEMORY_LIMIT_BYTES = 1024L * 1024 * 1024;
    /** The default limit on processes and threads: 512. */
    public static final int DEFAULT_MAX_PROCESSES = 512;

    private static final Pattern VARIABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    public RunnerConfig {
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(environment, "environment");
        Objects.requireNonNull(sandboxUser, "sandboxUser");
        if (sandboxUser.isRoot()) {
            throw new IllegalArgumentException("sandboxUser must not be root: the kernel exempts root from the process limit");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
        if (outputCapBytes <= 0 || memoryLimitBytes <= 0 || maxProcesses <= 0) {
            throw new IllegalArgumentException("outputCapBytes, memoryLimitBytes and maxProcesses must be positive, got "
                    + outputCapBytes + ", " + memoryLimitBytes + ", " + maxProcesses);
        }
        environment.forEach((name, value) -> {
            if (!VARIABLE_NAME.matcher(name).matches() || name.equals("HOME") || name.equals(CommandLine.COMMAND_VARIABLE)) {
                throw new IllegalArgumentException("cannot set environment variable " + name);
            }
            if (value.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("environment variable " + name + " has a NUL character");
            }
        });
        environment = Map.copyOf(environment);
        Objects.requireNonNull(hiddenPaths, "hiddenPaths");
        hiddenPaths.forEach(h -> {
            if (!h.isAbsolute()) {
                throw new IllegalArgumentException("a hidden path must be absolute, got " + h);
            }
        });
        hiddenPaths = List.copyOf(hiddenPaths);
    }

    /** 60 s, 1 MiB of output, 1 GiB of address space, 512 processes, no network, refusal without isolation. */
    public static RunnerConfig defaults() {
        return new RunnerConfig(DEFAULT_TIMEOUT, DEFAULT_OUTPUT_CAP_BYTES, DEFAULT_MEMORY_LIMIT_BYTES,
                DEFAULT_MAX_PROCESSES, false, false, Map.of(), SandboxUser.NOBODY, List.of(), true);
    }

    public RunnerConfig withTimeout(Duration timeout) {
        return new RunnerConfig(timeout, outputCapBytes, memoryLimitBytes, maxProcesses, networkAccess,
                allowNetworkWhenIsolationUnavailable, environment, sandboxUser, hiddenPaths, privateTmp);
    }

    public RunnerConfig withOutputCapBytes(int outputCapBytes) {
        return new RunnerConfig(timeout, outputCapBytes, memoryLimitBytes, maxProcesses, networkAccess,
                allowNetworkWhenIsolationUnavailable, environment, sandboxUser, hiddenPaths, privateTmp);
    }

    public RunnerConfig withMemoryLimitBytes(long memoryLimitBytes) {
        return new RunnerConfig(timeout, outputCapBytes, memoryLimitBytes, maxProcesses, networkAccess,
                allowNetworkWhenIsolationUnavailable, environment, sandboxUser, hiddenPaths, privateTmp);
    }

    public RunnerConfig withMaxProcesses(int maxProcesses) {
        return new RunnerConfig(timeout, outputCapBytes, memoryLimitBytes, maxProcesses, networkAccess,
                allowNetworkWhenIsolationUnavailable, environment, sandboxUser, hiddenPaths, privateTmp);
    }

    public RunnerConfig withNetworkAccess(boolean networkAccess) {
        return new RunnerConfig(timeout, outputCapBytes, memoryLimitBytes, maxProcesses, networkAccess,
                allowNetworkWhenIsolationUnavailable, environment, sandboxUser, hiddenPaths, privateTmp);
    }

    public RunnerConfig withAllowNetworkWhenIsolationUnavailable(boolean allow) {
        return new RunnerConfig(timeout, outputCapBytes, memoryLimitBytes, maxProcesses, networkAccess,
                allow, environment, sandboxUser, hiddenPaths, privateTmp);
    }

    public RunnerConfig withEnvironment(Map<String, String> environment) {
        return new RunnerConfig(timeout, outputCapBytes, memoryLimitBytes, maxProcesses, networkAccess,
                allowNetworkWhenIsolationUnavailable, environment, sandboxUser, hiddenPaths, privateTmp);
    }

    public RunnerConfig withSandboxUser(SandboxUser sandboxUser) {
        return new RunnerConfig(timeout, outputCapBytes, memoryLimitBytes, maxProcesses, networkAccess,
                allowNetworkWhenIsolationUnavailable, environment, sandboxUser, hiddenPaths, privateTmp);
    }

    /**
     * Directories a command must neither read nor change although its user may (the executor's own, where the command
     * user is the executor's: its blob store, its application): with namespaces, each that exists is covered by an empty
     * read-only tmpfs in the command's mount namespace, unless the workspace lies within it.
     */
    public RunnerConfig withHiddenPaths(List<Path> hiddenPaths) {
        return new RunnerConfig(timeout, outputCapBytes, memoryLimitBytes, maxProcesses, networkAccess,
                allowNetworkWhenIsolationUnavailable, environment, sandboxUser, hiddenPaths, privateTmp);
    }

    /**
     * Whether, with namespaces, {@code /tmp}, {@code /var/tmp} and {@code /dev/shm} are a fresh tmpfs of each command's own
     * (the default): in the host's, what one session's command left there would be another's to read and change.
     */
    public RunnerConfig withPrivateTmp(boolean privateTmp) {
        return new RunnerConfig(timeout, outputCapBytes, memoryLimitBytes, maxProcesses, networkAccess,
                allowNetworkWhenIsolationUnavailable, environment, sandboxUser, hiddenPaths, privateTmp);
    }

    /** Shows the environment's names, never its values. */
    @Override
    public String toString() {
        return "RunnerConfig[timeout=" + timeout + ", outputCapBytes=" + outputCapBytes
                + ", memoryLimitBytes=" + memoryLimitBytes + ", maxProcesses=" + maxProcesses
                + ", networkAccess=" + networkAccess
                + ", allowNetworkWhenIsolationUnavailable=" + allowNetworkWhenIsolationUnavailable
                + ", environment=" + new TreeMap<>(environment).keySet() + ", sandboxUser=" + sandboxUser + ", hiddenPaths=" + hiddenPaths + ", privateTmp=" + privateTmp + "]";
    }
}
