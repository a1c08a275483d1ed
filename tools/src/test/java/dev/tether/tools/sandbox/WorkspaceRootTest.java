package dev.tether.tools.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
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

        assertThat(WorkspaceRoot.existing(temp.resolve("workspaces"), "acme", "session-1", SandboxUser.current()))
                .get().extracting(Workspace::root).isEqualTo(opened.root());
    }

    @Test
    void existing_createsNothing_neitherTheWorkspaceNorTheRoot() {
        Path absent = temp.resolve("absent");
        assertThat(WorkspaceRoot.existing(absent, "acme", "session-1", SandboxUser.current())).isEmpty();
        assertThat(absent).doesNotExist();

        var roots = new WorkspaceRoot(temp.resolve("workspaces"), SandboxUser.current());
        assertThat(WorkspaceRoot.existing(roots.directory(), "acme", "session-2", SandboxUser.current())).isEmpty();
        assertThat(roots.directory().resolve("session-2")).doesNotExist();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".", "..", "../x", "a/b", ".hidden", "-rf", "with space", "x\0y"})
    void existing_findsNothing_forAnIdThatNamesNoWorkspace(String sessionId) throws IOException {
        Path root = Files.createDirectories(temp.resolve("workspaces"));
        Files.createDirectories(root.resolve(".hidden"));
        Files.createDirectories(temp.resolve("x"));

        assertThat(WorkspaceRoot.existing(root, "acme", sessionId, SandboxUser.current())).isEmpty();
    }

    @Test
    void existing_findsNothing_whereALinkOrAFileIs() throws IOException {
        var roots = new WorkspaceRoot(temp.resolve("workspaces"), SandboxUser.current());
        Files.createSymbolicLink(roots.directory().resolve("linked"), Path.of("/etc"));
        Files.writeString(roots.directory().resolve("a-file"), "x");

        assertThat(WorkspaceRoot.existing(roots.directory(), "acme", "linked", SandboxUser.current())).isEmpty();
        assertThat(WorkspaceRoot.existing(roots.directory(), "acme", "a-file", SandboxUser.current())).isEmpty();
    }

    @Test
    void aSessionIdIsOneTenantsAtATime_soAnotherTenantsOpen_clearsWhatTheErasedSessionLeft_andTheSameTenantsKeepsIt()
            throws IOException {
        var roots = new WorkspaceRoot(temp.resolve("workspaces"), SandboxUser.current());
        Workspace acme = roots.open("acme", "s-1");
        Files.createDirectories(acme.root().resolve("src"));
        Files.writeString(acme.root().resolve("src/private.txt"), "acme's");
        assertThat(roots.open("acme", "s-1").root().resolve("src/private.txt")).hasContent("acme's");

        Workspace globex = roots.open("globex", "s-1");

        assertThat(globex.root()).isEqualTo(acme.root()).isEmptyDirectory();
        assertThat(WorkspaceRoot.existing(roots.directory(), "acme", "s-1", SandboxUser.current())).as("no longer acme's").isEmpty();
        assertThat(WorkspaceRoot.existing(roots.directory(), "globex", "s-1", SandboxUser.current())).isPresent();
    }

    @Test
    void aWorkspaceMadeBeforeTenantsWereRecorded_isTakenOverByTheFirstTenantToOpenIt() throws IOException {
        var roots = new WorkspaceRoot(temp.resolve("workspaces"), SandboxUser.current());
        Files.writeString(roots.open("s-1").root().resolve("kept.txt"), "seeded");

        assertThat(roots.open("acme", "s-1").root().resolve("kept.txt")).hasContent("seeded");
        assertThat(WorkspaceRoot.existing(roots.directory(), "globex", "s-1", SandboxUser.current())).isEmpty();
    }

    @Test
    void erase_removesTheWorkspaceAndItsTenant_removingLinksWithoutFollowingThem() throws IOException {
        var roots = new WorkspaceRoot(temp.resolve("workspaces"), SandboxUser.current());
        Path outside = Files.createDirectories(temp.resolve("outside"));
        Files.writeString(outside.resolve("keep.txt"), "not the session's");
        Workspace workspace = roots.open("acme", "s-1");
        Files.createDirectories(workspace.root().resolve("a/b"));
        Files.writeString(workspace.root().resolve("a/b/c.txt"), "x");
        Files.createSymbolicLink(workspace.root().resolve("a/out"), outside);

        Instant erasedAt = Instant.now().plusSeconds(1);
        roots.erase("s-1", erasedAt);
        roots.erase("s-1", erasedAt); // every instance is told: the second finds nothing
        roots.erase("../outside", erasedAt);

        assertThat(roots.directory()).isEmptyDirectory();
        assertThat(outside.resolve("keep.txt")).hasContent("not the session's");
        assertThat(roots.open("globex", "s-1").root()).isEmptyDirectory();
    }

    @Test
    void anErasureReadAgain_leavesTheWorkspaceOfASessionMadeUnderTheIdSince_andRemovesOneMadeBefore() throws IOException {
        var roots = new WorkspaceRoot(temp.resolve("workspaces"), SandboxUser.current());
        Instant erasedAt = Instant.now().minusSeconds(60); // the first session of s-1 was erased a minute ago
        Files.writeString(roots.open("acme", "s-1").root().resolve("new.txt"), "the session made under the id since");

        roots.erase("s-1", erasedAt); // an executor restarted, reading the last minutes of the log again

        assertThat(roots.open("acme", "s-1").root().resolve("new.txt")).hasContent("the session made under the id since");
        roots.erase("s-1", Instant.now().plusSeconds(1)); // its own erasure
        assertThat(roots.directory()).isEmptyDirectory();

        Files.writeString(roots.open("s-2").root().resolve("old.txt"), "made before tenants were recorded");
        roots.erase("s-2", erasedAt);
        assertThat(roots.directory()).as("without a record, a workspace cannot be told later: it goes").isEmptyDirectory();
    }
}
