package dev.tether.tools.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every session's commands run as the same user; their mount namespace hides the other workspaces, but {@code /tmp},
 * {@code /var/tmp} and {@code /dev/shm} are the host's: what one session's command leaves there (a temp file, a build
 * output, a secret written by a script) another session's command reads, and can change.
 */
class PrivateTmpTest {

    private static final Isolation ISOLATION = Isolation.detect(RunnerConfig.defaults());
    private static final RunnerConfig QUICK = RunnerConfig.defaults().withTimeout(Duration.ofSeconds(20));

    @TempDir
    Path temp;

    private final String name = "tether-tmp-test-" + UUID.randomUUID();
    private Workspace first;
    private Workspace second;

    @BeforeEach
    void openWorkspaces() throws IOException {
        Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rwx--x--x"));
        var root = new WorkspaceRoot(temp.resolve("workspaces"), ISOLATION.commandUser());
        first = root.open("session-1");
        second = root.open("session-2");
    }

    @AfterEach
    void removeWhatTheCommandsLeft() throws IOException {
        for (String dir : new String[] {"/tmp", "/var/tmp", "/dev/shm"}) {
            Files.deleteIfExists(Path.of(dir, name));
        }
    }

    private CommandResult run(Workspace workspace, String command) throws Exception {
        return new CommandRunner(QUICK, ISOLATION).run(CommandRequest.in(workspace, command));
    }

    @Test
    void aFileOneSessionsCommandLeavesInTmp_isUnreadableByAnotherSessionsCommand() throws Exception {
        NamespacesRequired.assumeNamespaces(ISOLATION);
        for (String dir : new String[] {"/tmp", "/var/tmp", "/dev/shm"}) {
            if (!Files.isDirectory(Path.of(dir))) {
                continue;
            }
            String file = dir + "/" + name;
            CommandResult wrote = run(first, "echo session-1-private > " + file + " && echo wrote");
            assertThat(wrote.output()).contains("wrote");

            CommandResult read = run(second, "cat " + file + "; echo rc=$?");

            assertThat(read.output()).as("session-2 reading %s", file).doesNotContain("session-1-private");
        }
    }
}
