package dev.tether.tools.sandbox;

import static java.nio.charset.StandardCharsets.US_ASCII;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A command's processes: its first process, the leader of their process group (see {@link CommandLine}), and every
 * process seen descending from it. Killing sends SIGKILL to the group and to each of them. In a PID namespace that is
 * thorough: the first process's death takes the namespace with it. Without one it is best effort: a process that
 * left the group ({@code setsid}) and whose parent died before it was seen escapes.
 *
 * <p>Thread-safe.
 */
final class ProcessTree {

    private static final Duration POLL = Duration.ofMillis(10);
    private static final long GROUP_KILL_TIMEOUT_SECONDS = 5;

    private final ProcessHandle first;
    private final Set<ProcessHandle> seen = ConcurrentHashMap.newKeySet();

    ProcessTree(ProcessHandle first) {
        this.first = first;
    }

    /** Kills every process of the tree now. */
    void kill() {
        first.descendants().forEach(seen::add);
        killGroup();
        seen.forEach(ProcessHandle::destroyForcibly);
        first.destroyForcibly();
    }

    /**
     * Kills what is left of the tree after its first process ended, and waits until none of the processes ever seen is
     * running (zombies count as ended), for at most {@code limit}.
     *
     * @return whether none is running
     */
    boolean killRemaining(Duration limit) throws InterruptedException {
        killGroup();
        seen.forEach(ProcessHandle::destroyForcibly);
        long deadline = System.nanoTime() + limit.toNanos();
        while (seen.stream().anyMatch(ProcessTree::running)) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            Thread.sleep(POLL.toMillis());
        }
        return true;
    }

    /**
     * {@code kill -KILL -- -<pgid>}: the group's id is the first process's pid. No other group can have that id: a pid
     * is not handed out again while a group of that id exists. Failures are ignored: in a PID namespace the namespace
     * kill does the work, and without one there is nothing better to do.
     */
    private void killGroup() {
        try {
            Process kill = new ProcessBuilder(List.of("kill", "-s", "KILL", "--", "-" + first.pid()))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectErrorStream(true)
                    .start();
            if (!kill.waitFor(GROUP_KILL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
            }
        } catch (IOException e) {
            // no kill(1) here: see above
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether the process runs: it exists, is the same process (start time) and is not a zombie. */
    static boolean running(ProcessHandle process) {
        if (!process.isAlive()) {
            return false;
        }
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"), US_ASCII);
            int afterName = stat.lastIndexOf(')'); // the name, in parentheses, may hold spaces and parentheses
            return afterName < 0 || afterName + 2 >= stat.length() || stat.charAt(afterName + 2) != 'Z';
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }
}
