package dev.tether.tools.sandbox;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkspaceTest {

    @TempDir
    Path temp;

    private Workspace workspace;
    private Path root;

    @BeforeEach
    void openWorkspace() {
        workspace = new WorkspaceRoot(temp.resolve("workspaces"), SandboxUser.current()).open("session-1");
        root = workspace.root();
    }

    private SandboxViolation.Reason refusal(String path) {
        Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> workspace.resolve(path));
        assertThat(thrown).isInstanceOf(SandboxViolation.class);
        return ((SandboxViolation) thrown).reason();
    }

    @Test
    void resolvesARelativePath_toARealPathInside() throws IOException {
        Files.createDirectories(root.resolve("src/main"));

        assertThat(workspace.resolve("src/main")).isEqualTo(root.resolve("src/main"));
        assertThat(workspace.resolve("./src//main/")).isEqualTo(root.resolve("src/main"));
        assertThat(workspace.resolve("src/../src/main")).isEqualTo(root.resolve("src/main"));
        assertThat(workspace.resolve(".")).isEqualTo(root);
    }

    @Test
    void resolvesAPathToBeCreated_underItsDeepestExistingParent() throws IOException {
        Files.createDirectories(root.resolve("src"));

        assertThat(workspace.resolve("src/new/dir/file.txt")).isEqualTo(root.resolve("src/new/dir/file.txt"));
        assertThat(workspace.resolve("brand-new.txt")).isEqualTo(root.resolve("brand-new.txt"));
    }

    @Test
    void refusesAPathLongerThanPathMax_beforeLookingAtIt() {
        String deep = "a/".repeat(20_000) + "x"; // resolved name by name, such a path took seconds, and 1 MB minutes
        long start = System.nanoTime();

        assertThat(refusal(deep)).isEqualTo(SandboxViolation.Reason.TOO_LONG);
        assertThat(System.nanoTime() - start).isLessThan(1_000_000_000L);
        assertThat(refusal("é".repeat(2049))).isEqualTo(SandboxViolation.Reason.TOO_LONG); // 4098 UTF-8 bytes
        assertThat(workspace.resolve("a/".repeat(2047) + "x")).isEqualTo(root.resolve("a/".repeat(2047) + "x"));
    }

    @Test
    void refusesPath_thatEscapesWithDotDot() {
        assertThat(refusal("../x")).isEqualTo(SandboxViolation.Reason.OUTSIDE_WORKSPACE);
        assertThat(refusal("..")).isEqualTo(SandboxViolation.Reason.OUTSIDE_WORKSPACE);
        assertThat(refusal("a/../../x")).isIn(
                SandboxViolation.Reason.OUTSIDE_WORKSPACE, SandboxViolation.Reason.UNRESOLVABLE);
    }

    @Test
    void refusesPath_thatEscapesWithDotDot_throughAnExistingDirectory() throws IOException {
        Files.createDirectories(root.resolve("a"));

        assertThat(refusal("a/../../session-2/x")).isEqualTo(SandboxViolation.Reason.OUTSIDE_WORKSPACE);
    }

    @Test
    void refusesPath_withDotDotAfterAMissingDirectory() {
        assertThat(refusal("missing/../x")).isEqualTo(SandboxViolation.Reason.UNRESOLVABLE);
    }

    @Test
    void refusesAbsolutePaths_evenInsideTheWorkspace() throws IOException {
        Files.writeString(root.resolve("inside.txt"), "x");

        assertThat(refusal("/etc/passwd")).isEqualTo(SandboxViolation.Reason.ABSOLUTE);
        assertThat(refusal(root.resolve("inside.txt").toString())).isEqualTo(SandboxViolation.Reason.ABSOLUTE);
    }

    @Test
    void refusesPath_thatIsASymlinkToEtc() throws IOException {
        Files.createSymbolicLink(root.resolve("etc"), Path.of("/etc"));
        Files.createSymbolicLink(root.resolve("passwd"), Path.of("/etc/passwd"));

        assertThat(refusal("etc")).isEqualTo(SandboxViolation.Reason.OUTSIDE_WORKSPACE);
        assertThat(refusal("passwd")).isEqualTo(SandboxViolation.Reason.OUTSIDE_WORKSPACE);
    }

    @Test
    void refusesPath_thatEscapesThroughASymlinkedDirectory() throws IOException {
        Files.createSymbolicLink(root.resolve("etc"), Path.of("/etc"));

        assertThat(refusal("etc/passwd")).isEqualTo(SandboxViolation.Reason.OUTSIDE_WORKSPACE);
        assertThat(refusal("etc/new-file-to-create")).isEqualTo(SandboxViolation.Reason.OUTSIDE_WORKSPACE);
    }

    @Test
    void refusesPath_thatEscapesThroughAChainOfSymlinks() throws IOException {
        Files.createDirectories(root.resolve("dir"));
        Files.createSymbolicLink(root.resolve("dir/out"), Path.of("../../.."));
        Files.createSymbolicLink(root.resolve("first"), Path.of("second"));
        Files.createSymbolicLink(root.resolve("second"), Path.of("dir/out"));

        assertThat(refusal("first")).isEqualTo(SandboxViolation.Reason.OUTSIDE_WORKSPACE);
        assertThat(refusal("first/etc/passwd")).isEqualTo(SandboxViolation.Reason.OUTSIDE_WORKSPACE);
    }

    @Test
    void refusesPath_thatIsASymlinkToNothing() throws IOException {
        Files.createSymbolicLink(root.resolve("dangling"), Path.of("/nonexistent/target"));

        assertThat(refusal("dangling")).isEqualTo(SandboxViolation.Reason.DANGLING_LINK);
    }

    @Test
    void refusesPath_inASymlinkLoop() throws IOException {
        Files.createSymbolicLink(root.resolve("loop-a"), Path.of("loop-b"));
        Files.createSymbolicLink(root.resolve("loop-b"), Path.of("loop-a"));

        assertThat(refusal("loop-a/x")).isEqualTo(SandboxViolation.Reason.UNRESOLVABLE);
    }

    @Test
    void refusesEmptyPaths_andPathsWithNul() {
        assertThat(refusal("")).isEqualTo(SandboxViolation.Reason.EMPTY);
        assertThat(refusal("a\0b")).isEqualTo(SandboxViolation.Reason.NUL_BYTE);
    }

    @Test
    void allowsPaths_throughSymlinksThatStayInside() throws IOException {
        Files.createDirectories(root.resolve("real/dir"));
        Files.writeString(root.resolve("real/dir/file.txt"), "x");
        Files.createSymbolicLink(root.resolve("link"), Path.of("real/dir"));
        Files.createSymbolicLink(root.resolve("real/up"), Path.of(".."));

        assertThat(workspace.resolve("link/file.txt")).isEqualTo(root.resolve("real/dir/file.txt"));
        assertThat(workspace.resolve("link/new.txt")).isEqualTo(root.resolve("real/dir/new.txt"));
        assertThat(workspace.resolve("real/up/link")).isEqualTo(root.resolve("real/dir"));
    }

    @Test
    void namesThePathAndTheReason_butNotTheTargetOrTheContent() throws IOException {
        Files.writeString(root.resolve("secret.txt"), "TOP-SECRET-CONTENT");
        Files.createSymbolicLink(root.resolve("shadow"), Path.of("/etc/shadow"));

        assertThatThrownBy(() -> workspace.resolve("shadow"))
                .hasMessage("path \"shadow\" is refused: it leads outside the workspace")
                .hasMessageNotContaining("/etc");
        assertThatThrownBy(() -> workspace.resolve("../x\n\"y"))
                .hasMessage("path \"../x\\u000a\\\"y\" is refused: it leads outside the workspace");
    }

    @Test
    void writesAtomically_creatingParentDirectories_andLeavingNoTemporaryFile() throws IOException {
        Path file = workspace.resolve("a/b/c.txt");

        workspace.write(file, "first".getBytes(UTF_8));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-x---"));
        workspace.write(file, "second".getBytes(UTF_8));

        assertThat(file).hasContent("second");
        assertThat(Files.getPosixFilePermissions(file)).isEqualTo(PosixFilePermissions.fromString("rwxr-x---"));
        try (var entries = Files.list(file.getParent())) {
            assertThat(entries).containsExactly(file);
        }
    }

    @Test
    void refusesToWrite_overADirectory_orOutsideTheWorkspace() throws IOException {
        Files.createDirectories(root.resolve("dir"));

        assertThatThrownBy(() -> workspace.write(root.resolve("dir"), new byte[0]))
                .isInstanceOf(IOException.class).hasMessageContaining("is a directory");
        assertThatThrownBy(() -> workspace.write(temp.resolve("outside.txt"), new byte[0]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(temp.resolve("outside.txt")).doesNotExist();
    }

    @Test
    void givesWhatItCreates_toTheWorkspaceOwner() throws IOException {
        org.junit.jupiter.api.Assumptions.assumeTrue(SandboxUser.current().isRoot());
        Workspace owned = new WorkspaceRoot(temp.resolve("owned"), SandboxUser.NOBODY).open("s");

        Path file = owned.resolve("dir/file.txt");
        owned.write(file, "x".getBytes(UTF_8));

        for (Path created : new Path[] {owned.root(), file.getParent(), file}) {
            assertThat(Files.getAttribute(created, "unix:uid")).as(created.toString()).isEqualTo(65534);
            assertThat(Files.getAttribute(created, "unix:gid")).as(created.toString()).isEqualTo(65534);
        }
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(owned.root()))).isEqualTo("rwx------");
    }

    @Test
    void relativizesPaths_forDisplay() {
        assertThat(workspace.relativize(root.resolve("a/b.txt"))).isEqualTo("a/b.txt");
        assertThat(workspace.relativize(root)).isEqualTo(".");
        assertThatThrownBy(() -> workspace.relativize(temp)).isInstanceOf(IllegalArgumentException.class);
    }
}
