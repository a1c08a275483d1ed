package dev.tether.tools.sandbox;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The argv that runs a command in a workspace, by isolation:
 *
 * <pre>
 * setsid [setpriv --reuid=U --regid=G --clear-groups --]
 *     unshare --user --map-root-user [--net] --pid --fork --kill-child --mount-proc --
 *     /bin/sh -c HIDE_SIBLINGS tether-sandbox WORKSPACES WORKSPACE RUN
 *       ... exec unshare --user --map-root-user --mount --
 *           prlimit --as=BYTES --nproc=N -- /bin/sh -c RUN                (Namespaces)
 * setsid prlimit --as=BYTES -- /bin/sh -c RUN                              (Unavailable)
 * </pre>
 *
 * <p><b>The command itself is not in any argv.</b> It is passed in the environment variable {@value #COMMAND_VARIABLE}
 * ({@link #putCommand}), and {@link #RUN} unsets it and runs it with {@code eval}: a process's argv is any local user's
 * to read ({@code /proc/PID/cmdline}, {@code ps}), and a command holds the values of its {@code secret://} references;
 * its environment is readable only by its own user. The command's own processes inherit neither.
 *
 * {@code setsid} makes the command's first process the leader of a new session and process group, whose id is its
 * pid. Each tool then replaces itself ({@code exec}), so that pid is {@code unshare}'s, whose death kills the PID
 * namespace's init ({@code --kill-child}), whose death kills every process in the namespace. The user namespace
 * makes the process limit count this command's processes only, and lets an unprivileged executor create the other
 * namespaces; under root, {@code setpriv} first switches to the sandbox user, since the kernel does not apply the
 * process limit to root. Without namespaces there is no process limit: it would count every process of the
 * executor's user, the executor's own threads included.
 *
 * <p><b>Other sessions' workspaces are hidden.</b> Every workspace belongs to the same command user, so file modes
 * cannot keep one session's command out of another's workspace. Inside its own mount namespace, {@link #HIDE_SIBLINGS}
 * mounts an empty tmpfs, read-only once set up (a per-mount flag the command cannot clear), over the directory that holds the workspaces and binds only this workspace back
 * at its own path (the bind's source is {@code .}, the working directory, which still names the real directory under
 * the tmpfs; {@code mount --no-canonicalize} keeps {@code mount(8)} from turning it into a path that would now lead
 * into the tmpfs), then enters it again so that {@code ..} leads into the tmpfs. Its second {@code unshare} puts the
 * command in a nested user and mount namespace: mounts copied into a namespace owned by a less privileged user
 * namespace are locked, so the command, root in its own user namespace, cannot unmount the tmpfs to uncover the
 * other workspaces (the kernel answers {@code EINVAL}). {@code /tmp}, {@code /var/tmp} and {@code /dev/shm} are each a
 * fresh tmpfs of the command's own ({@link #PRIVATE_TMP}, unless configured otherwise), and the directories the
 * configuration hides are covered by an empty read-only one ({@link #HIDE_PATHS}). If any step fails the script exits non-zero and the command
 * does not run.
 */
final class CommandLine {

    static final String SHELL = "/bin/sh";

    /** The environment variable the command is passed in, unset before it runs. */
    static final String COMMAND_VARIABLE = "TETHER_COMMAND";

    /**
     * The script the last shell runs: {@code eval}'s argument is expanded before {@code eval} runs, so the command runs
     * after the {@code unset}, as {@code sh -c COMMAND} would run it, with no variable of Tether's left. Both are on one
     * line, so the shell's messages name the command's own line numbers (after {@code eval: }).
     */
    static final String RUN = "eval \"unset " + COMMAND_VARIABLE + "; $" + COMMAND_VARIABLE + "\"";

    /**
     * The most a command's private {@code /tmp}, {@code /var/tmp} and {@code /dev/shm} may each hold (tmpfs, so memory,
     * taken only as it is written).
     */
    static final String TMP_SIZE = "256m";

    /**
     * A fresh tmpfs over each of {@code /tmp}, {@code /var/tmp} and {@code /dev/shm} that exists: every session's
     * commands run as the same user, so in the host's a file one session's command left (a build's output, a secret a
     * script wrote) would be another's to read and change. When the workspace lies under one of them (a test's), its
     * path is made again in the new tmpfs and the workspace, the working directory, bound back at it.
     */
    static final String PRIVATE_TMP = "for t in /tmp /var/tmp /dev/shm; do "
            + "[ -d \"$t\" ] || continue; "
            + "mount --no-canonicalize -t tmpfs -o mode=1777,size=" + TMP_SIZE + ",nosuid,nodev tether-tmp \"$t\"; "
            + "case \"$2/\" in \"$t\"/*) mkdir -p \"$2\"; mount --no-canonicalize --bind . \"$2\"; cd -P \"$2\";; esac; "
            + "done; ";

    /**
     * An empty read-only tmpfs over each hidden directory ({@code $4} on) that exists and does not hold the workspace:
     * where the command user is the executor's own, the executor's files are otherwise the command's to read and change.
     */
    static final String HIDE_PATHS = "w=\"$2\"; c=\"$3\"; shift 3; for h do "
            + "[ -d \"$h\" ] || continue; "
            + "case \"$w/\" in \"$h\"/*) continue;; esac; "
            + "mount --no-canonicalize -t tmpfs -o ro,mode=000,size=4k,nr_inodes=1,nosuid,nodev,noexec tether-hidden \"$h\"; "
            + "done; ";

    /**
     * {@code $1} the directory holding the workspaces, {@code $2} this workspace, {@code $3} the command, {@code $4} on
     * the directories to hide ({@link #HIDE_PATHS}); the working directory is this workspace. Every path is taken relative to it ({@code ..}, {@code ../<name>}, {@code cd -P}), so
     * the command user needs no search permission on the directories above the workspaces (a clone in a 0700 home).
     */
    static final String HIDE_SIBLINGS = "set -e; n=\"${2##*/}\"; "
            + "mount --no-canonicalize -t tmpfs -o mode=711,size=16k,nr_inodes=16,nosuid,nodev,noexec tether-workspaces ..; "
            + "mkdir \"../$n\"; "
            + "mount --no-canonicalize --bind . \"../$n\"; "
            + "mount --no-canonicalize -o remount,bind,ro ..; "
            + "cd -P \"../$n\"; ";

    private CommandLine() {}

    /**
     * The argv that runs the command {@link #putCommand} put into the process's environment.
     *
     * @param workspace the command's workspace, a real path; with namespaces, its parent (the directory holding every
     *                  session's workspace) is hidden, so it must not be {@code /}
     */
    static List<String> of(Isolation isolation, RunnerConfig config, Path workspace) {
        var argv = new ArrayList<String>();
        argv.add("setsid");
        if (isolation instanceof Isolation.Namespaces namespaces) {
            Path workspaces = workspace.getParent();
            if (!workspace.isAbsolute() || workspaces == null || workspaces.getParent() == null) {
                throw new IllegalArgumentException("a workspace must be an absolute path below a directory other than /,"
                        + " got " + workspace);
            }
            if (namespaces.switchesUser()) {
                SandboxUser user = namespaces.commandUser();
                argv.addAll(List.of("setpriv", "--reuid=" + user.uid(), "--regid=" + user.gid(), "--clear-groups", "--"));
            }
            argv.addAll(List.of("unshare", "--user", "--map-root-user"));
            if (!config.networkAccess()) {
                argv.add("--net");
            }
            argv.addAll(List.of("--pid", "--fork", "--kill-child", "--mount-proc", "--"));
            String confined = "unshare --user --map-root-user --mount -- prlimit --as=" + config.memoryLimitBytes()
                    + " --nproc=" + config.maxProcesses() + " -- " + SHELL + " -c \"$c\"";
            String script = HIDE_SIBLINGS + (config.privateTmp() ? PRIVATE_TMP : "") + HIDE_PATHS + "exec " + confined;
            argv.addAll(List.of(SHELL, "-c", script, "tether-sandbox",
                    workspaces.toString(), workspace.toString(), RUN));
            config.hiddenPaths().forEach(h -> argv.add(h.toString()));
            return List.copyOf(argv);
        } else if (isolation instanceof Isolation.Unavailable) {
            argv.addAll(List.of("prlimit", "--as=" + config.memoryLimitBytes(), "--"));
        } else {
            throw new IllegalStateException("unhandled isolation " + isolation);
        }
        argv.addAll(List.of(SHELL, "-c", RUN));
        return List.copyOf(argv);
    }

    /** Puts {@code command}, a {@code /bin/sh} script, into the environment of the process {@link #of} describes. */
    static void putCommand(Map<String, String> environment, String command) {
        environment.put(COMMAND_VARIABLE, command);
    }
}
