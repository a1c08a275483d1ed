package dev.tether.tools.sandbox;

import java.util.ArrayList;
import java.util.List;

/**
 * The argv that runs a command, by isolation:
 *
 * <pre>
 * setsid [setpriv --reuid=U --regid=G --clear-groups --]
 *     unshare --user --map-root-user [--net] --pid --fork --kill-child --mount-proc --
 *     prlimit --as=BYTES --nproc=N -- /bin/sh -c COMMAND          (Namespaces)
 * setsid prlimit --as=BYTES -- /bin/sh -c COMMAND                  (Unavailable)
 * </pre>
 *
 * {@code setsid} makes the command's first process the leader of a new session and process group, whose id is its
 * pid. Each tool then replaces itself ({@code exec}), so that pid is {@code unshare}'s, whose death kills the PID
 * namespace's init ({@code --kill-child}), whose death kills every process in the namespace. The user namespace
 * makes the process limit count this command's processes only, and lets an unprivileged executor create the other
 * namespaces; under root, {@code setpriv} first switches to the sandbox user, since the kernel does not apply the
 * process limit to root. Without namespaces there is no process limit: it would count every process of the
 * executor's user, the executor's own threads included.
 */
final class CommandLine {

    static final String SHELL = "/bin/sh";

    private CommandLine() {}

    static List<String> of(Isolation isolation, RunnerConfig config, String command) {
        var argv = new ArrayList<String>();
        argv.add("setsid");
        if (isolation instanceof Isolation.Namespaces namespaces) {
            if (namespaces.switchesUser()) {
                SandboxUser user = namespaces.commandUser();
                argv.addAll(List.of("setpriv", "--reuid=" + user.uid(), "--regid=" + user.gid(), "--clear-groups", "--"));
            }
            argv.addAll(List.of("unshare", "--user", "--map-root-user"));
            if (!config.networkAccess()) {
                argv.add("--net");
            }
            argv.addAll(List.of("--pid", "--fork", "--kill-child", "--mount-proc", "--"));
            argv.addAll(List.of("prlimit", "--as=" + config.memoryLimitBytes(), "--nproc=" + config.maxProcesses(), "--"));
        } else if (isolation instanceof Isolation.Unavailable) {
            argv.addAll(List.of("prlimit", "--as=" + config.memoryLimitBytes(), "--"));
        } else {
            throw new IllegalStateException("unhandled isolation " + isolation);
        }
        argv.addAll(List.of(SHELL, "-c", command));
        return List.copyOf(argv);
    }
}
