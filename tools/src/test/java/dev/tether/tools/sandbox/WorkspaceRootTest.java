package dev.tether.tools.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class WorkspaceRootTest {

    @TempDir
    Path temp;

    @Test
    void opensOneDirectoryPerSession_namedByItsId() throws IOException {
        var roots = new WorkspaceRoot(temp.resolve("workspaces"), SandboxUser.current());

        Workspace first = roots.open("session-1");
        Workspace again = roots.open("session-1");
        Workspace other = roots.open("Session_2.b");

        assertThat(first.root()).isEqualTo(temp.toRealPath().resolve("workspaces/session-1")).isDirectory();
        assertThat(again.root()).isEqualTo(first.root());
        assertThat(other.root().getFileName()).hasToString("Session_2.b");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(roots.directory()))).isEqualTo("rwx--x--x");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".", "..", "../x", "a/b", ".hidden", "-rf", "with space", "ünïcode", "x\0y"})
    void refusesSessionIds_thatAreNotPlainNames(String sessionId) {
        var roots = new WorkspaceRoot(temp, SandboxUser.current());

        assertThatThrownBy(() -> roots.open(sessionId))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(WorkspaceRoot.SESSION_ID_REGEX);
    }

    @Test
    void refusesSessionIds_longerThan128Characters() {
        var roots = new WorkspaceRoot(temp, SandboxUser.current());

        assertThat(roots.open("a".repeat(128)).root()).isDirectory();
        assertThatThrownBy(() -> roots.open("a".repeat(129))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void refusesAWorkspace_thatIsASymlink() throws IOException {
        var roots = new WorkspaceRoot(temp.resolve("workspaces"), SandboxUser.current());
        Files.createSymbolicLink(roots.directory().resolve("linked"), Path.of("/etc"));

        assertThatThrownBy(() -> roots.open("linked")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void existing_findsTheWorkspaceOpenCreated_atTheSameLayout() {
        var roots = new WorkspaceRoot(temp.resolve("workspaces"), SandboxUser.current());
        Workspace opened = roots.open("session-1");

        assertThat(WorkspaceRoot.existing(temp.resolve("workspaces"), "session-1", SandboxUser.current()))
                .get().extracting(Workspace::root).isEqualTo(opened.root());
    }

    @Test
    void existing_createsNothing_neitherTheWorkspaceNorTheRoot() {
        Path absent = temp.resolve("absent");
        assertThat(WorkspaceRoot.existing(absent, "session-1", SandboxUser.current())).isEmpty();
        assertThat(absent).doesNotExist();

        var roots = new WorkspaceRoot(temp.resolve("workspaces"), SandboxUser.current());
        assertThat(WorkspaceRoot.existing(roots.directory(), "session-2", SandboxUser.current())).isEmpty();
        assertThat(roots.directory().resolve("session-2")).doesNotExist();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".", "..", "../x", "a/b", ".hidden", "-rf", "with space", "x\0y"})
    void existing_findsNothing_forAnIdThatNamesNoWorkspace(String sessionId) throws IOException {
        Path root = Files.createDirectories(temp.resolve("workspaces"));
        Files.createDirectories(root.resolve(".hidden"));
        Files.createDirectories(temp.resolve("x"));

        assertThat(WorkspaceRoot.existing(root, sessionId, SandboxUser.current())).isEmpty();
    }

    @Test
    void existing_findsNothing_whereALinkOrAFileIs() throws IOException {
        var roots = new WorkspaceRoot(temp.resolve("workspaces"), SandboxUser.current());
        Files.createSymbolicLink(roots.directory().resolve("linked"), Path.of("/etc"));
        Files.writeString(roots.directory().resolve("a-file"), "x");

        assertThat(WorkspaceRoot.existing(roots.directory(), "linked", SandboxUser.current())).isEmpty();
        assertThat(WorkspaceRoot.existing(roots.directory(), "a-file", SandboxUser.current())).isEmpty();
    }
}
