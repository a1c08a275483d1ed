package dev.tether.tools.sandbox;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the executor does not run as root (every shipped image: {@code USER 1001}, k8s {@code runAsUser: 1001}), the
 * command user is the executor's own user ({@link Isolation#detect}), and the command, root in its user namespace, is
 * that user outside it: what the executor owns (its blob store, every tenant's offloaded tool output; its own jars) is
 * the command's to read and change at its absolute path unless hidden ({@link RunnerConfig#withHiddenPaths}). The test
 * stands in for that deployment by giving a directory beside the workspaces to the command user; both lie in a temporary
 * directory, so the command's private {@code /tmp} is turned off here, else it would hide them all the same.
 */
class HiddenPathsTest {

    private static final Isolation ISOLATION = Isolation.detect(RunnerConfig.defaults());

    @TempDir
    Path temp;

    private Workspace workspace;
    private Path blob;

    @BeforeEach
    void setUp() throws IOException {
        Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rwx--x--x"));
        workspace = new WorkspaceRoot(temp.resolve("workspaces"), ISOLATION.commandUser()).open("session-1");
        // the executor's blob store, beside the workspaces, owned by the executor's user = the command user
        Path blobs = Files.createDirectories(temp.resolve("blobs").resolve("tenant-2"));
        blob = Files.writeString(blobs.resolve("5e0f"), "tenant-2 offloaded tool output\n", UTF_8);
        for (Path p : new Path[] {temp.resolve("blobs"), blobs, blob}) {
            Files.setAttribute(p, "unix:uid", ISOLATION.commandUser().uid(), LinkOption.NOFOLLOW_LINKS);
            Files.setAttribute(p, "unix:gid", ISOLATION.commandUser().gid(), LinkOption.NOFOLLOW_LINKS);
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(Files.isDirectory(p) ? "rwx------" : "rw-------"));
        }
    }

    private CommandResult readAndAppend(RunnerConfig config) throws Exception {
        return new CommandRunner(config.withTimeout(Duration.ofSeconds(20)).withPrivateTmp(false), ISOLATION).run(CommandRequest.in(workspace,
                "cat " + blob + "; echo read-rc=$?; echo tampered >> " + blob + "; echo write-rc=$?"));
    }

    @Test
    void aCommand_cannotReadOrChangeAHiddenDirectoryItsUserOwns() throws Exception {
        NamespacesRequired.assumeNamespaces(ISOLATION);
        assertThat(readAndAppend(RunnerConfig.defaults()).output()).as("the control: not hidden, its user's to read")
                .contains("tenant-2 offloaded tool output").contains("read-rc=0");
        Files.writeString(blob, "tenant-2 offloaded tool output\n", UTF_8);

        CommandResult result = readAndAppend(RunnerConfig.defaults().withHiddenPaths(List.of(temp.resolve("blobs"))));

        assertThat(result.output()).doesNotContain("tenant-2 offloaded tool output")
                .containsPattern("read-rc=[1-9]").containsPattern("write-rc=[1-9]");
        assertThat(blob).hasContent("tenant-2 offloaded tool output\n");
    }

    @Test
    void aHiddenDirectoryHoldingTheWorkspace_isLeftAlone() throws Exception {
        NamespacesRequired.assumeNamespaces(ISOLATION);

        CommandResult result = new CommandRunner(RunnerConfig.defaults().withTimeout(Duration.ofSeconds(20)).withPrivateTmp(false)
                .withHiddenPaths(List.of(temp)), ISOLATION).run(CommandRequest.in(workspace, "echo in-workspace > f && cat f"));

        assertThat(result.output()).contains("in-workspace");
    }
}
