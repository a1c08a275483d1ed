package dev.tether.approval.workspace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.approval.domain.CallTarget;
import dev.tether.approval.domain.Inspection;
import dev.tether.core.blob.BlobOffloader;
import dev.tether.core.blob.LocalBlobStore;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolMode;
import dev.tether.tools.Tool;
import dev.tether.tools.ToolRegistry;
import dev.tether.tools.sandbox.SandboxUser;
import dev.tether.tools.sandbox.Workspace;
import dev.tether.tools.sandbox.WorkspaceRoot;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What approvers are shown, worked out by the tools' own code against a real (temporary) workspace. */
class WorkspaceInspectorTest {

    @TempDir
    Path dir;
    private Path root;
    private WorkspaceInspector inspector;
    private LocalBlobStore blobs;

    @BeforeEach
    void setUp() throws IOException {
        root = dir.resolve("workspaces");
        Files.createDirectories(root.resolve("s-1/src"));
        Files.createDirectories(root.resolve("s-1/test"));
        Files.writeString(root.resolve("s-1/src/Foo.java"), "class Foo {\n}\n");
        blobs = new LocalBlobStore(dir.resolve("blobs"));
        inspector = new WorkspaceInspector(ToolRegistry.builtIn(List.of("docs.example.org")), root, dir.resolve("scratch"),
                new BlobOffloader(blobs, 1024, 100));
    }

    private Inspection inspect(String sessionId, String tool, String arguments) {
        return inspector.inspect("acme", sessionId, ToolMode.WRITE, new ToolCall("c1", tool, arguments));
    }

    @Test
    void theModesRegistries_areTheExecutors() {
        assertThat(inspector.tools(ToolMode.READ_ONLY)).containsExactlyInAnyOrder("read_file", "list_dir", "grep", "http_fetch");
        assertThat(inspector.tools(ToolMode.WRITE)).contains("write_file", "edit_file", "run_command");
    }

    @Test
    void editFile_isShownAsTheUnifiedDiffAgainstTheWorkspace() {
        Inspection in = inspect("s-1", "edit_file", "{\"path\":\"src/Foo.java\",\"old\":\"class Foo\",\"new\":\"class Bar\"}");

        assertThat(in.shown()).contains("--- a/src/Foo.java", "+++ b/src/Foo.java", "@@ ", "-class Foo {", "+class Bar {");
        assertThat(in.shownSha256()).isEqualTo(Tool.shownSha256(in.shown()));
        assertThat(in.target()).isEqualTo(new CallTarget("src/Foo.java", "src/Foo.java"));
        assertThat(in.shownRef()).isNull();
    }

    @Test
    void writeFile_ofANewFile_inASessionWithoutAWorkspace_isDiffedAgainstNothing_andCreatesNothing() {
        Inspection in = inspect("s-new", "write_file", "{\"path\":\"docs/a.md\",\"content\":\"hello\\n\"}");

        assertThat(in.shown()).contains("+hello");
        assertThat(in.target()).isEqualTo(new CallTarget("docs/a.md", "docs/a.md"));
        assertThat(root.resolve("s-new")).doesNotExist();
    }

    @Test
    void theWorkspaceTheExecutorOpens_isTheOnePreviewed() throws IOException {
        Workspace opened = new WorkspaceRoot(root, SandboxUser.current()).open("acme", "s-2"); // as the executor opens it
        Files.writeString(opened.root().resolve("notes.txt"), "one\n");

        Inspection in = inspect("s-2", "edit_file", "{\"path\":\"notes.txt\",\"old\":\"one\",\"new\":\"two\"}");

        assertThat(in.shown()).contains("--- a/notes.txt", "-one", "+two");
        assertThat(in.target()).isEqualTo(new CallTarget("notes.txt", "notes.txt"));
    }

    @Test
    void aWorkspaceAnotherTenantsErasedSessionLeftUnderTheId_isPreviewedAsEmpty() throws IOException {
        Workspace globex = new WorkspaceRoot(root, SandboxUser.current()).open("globex", "s-3");
        Files.writeString(globex.root().resolve("notes.txt"), "globex's private notes\n");

        Inspection in = inspect("s-3", "write_file", "{\"path\":\"notes.txt\",\"content\":\"acme's\\n\"}");

        assertThat(in.shown()).contains("--- /dev/null", "+acme's").doesNotContain("globex");
    }

    @Test
    void aWorkspaceThatCannotBeRead_isNotPreviewedAsEmpty_andItsPathsLeadNowhereKnown() throws IOException {
        // its file exists: a diff against an empty workspace would show the approver a new file where the call overwrites
        // one, and the path's real place (through whatever links the workspace has) is not known to fall under any glob
        Workspace opened = new WorkspaceRoot(root, SandboxUser.current()).open("acme", "s-4");
        Files.writeString(opened.root().resolve("notes.txt"), "kept\n");
        Files.write(root.resolve(".s-4.tenant"), new byte[] {(byte) 0xff, (byte) 0xfe}); // its tenant record cannot be read

        Inspection in = inspect("s-4", "write_file", "{\"path\":\"notes.txt\",\"content\":\"new\\n\"}");

        assertThat(in.shown()).startsWith("write_file {\"path\":\"notes.txt\"").contains("(no preview: ")
                .doesNotContain("/dev/null");
        assertThat(in.target()).isEqualTo(new CallTarget("notes.txt", null));
    }

    @Test
    void aWorkspaceRootThatDoesNotExist_isPreviewedAsEmpty_andNotCreated() {
        Path absent = dir.resolve("no-workspaces");
        var elsewhere = new WorkspaceInspector(ToolRegistry.builtIn(List.of()), absent, dir.resolve("scratch"),
                new BlobOffloader(blobs, 1024, 100));

        Inspection in = elsewhere.inspect("acme", "s-1", ToolMode.WRITE, new ToolCall("c1", "write_file",
                "{\"path\":\"a.md\",\"content\":\"x\\n\"}"));

        assertThat(in.shown()).contains("+x");
        assertThat(absent).doesNotExist();
    }

    @Test
    void runCommand_isShownAsItsWholeCommandLine() {
        Inspection in = inspect("s-1", "run_command", "{\"command\":\"make test && rm -rf build\"}");

        assertThat(in.shown()).isEqualTo("make test && rm -rf build");
        assertThat(in.target()).isEqualTo(CallTarget.NONE);
    }

    @Test
    void httpFetch_isShownAsItsUrl() {
        Inspection in = inspect("s-1", "http_fetch", "{\"url\":\"https://docs.example.org/a?b=c\"}");

        assertThat(in.shown()).startsWith("GET https://docs.example.org/a?b=c");
    }

    @Test
    void aPathThroughALink_isTargetedWhereItLeads() throws IOException {
        Files.createSymbolicLink(root.resolve("s-1/src/link"), root.resolve("s-1/test"));
        Files.writeString(root.resolve("s-1/test/x.java"), "x\n");

        Inspection in = inspect("s-1", "edit_file", "{\"path\":\"src/link/x.java\",\"old\":\"x\",\"new\":\"y\"}");

        assertThat(in.target()).isEqualTo(new CallTarget("src/link/x.java", "test/x.java"));
    }

    @Test
    void aPathLeadingOutOfTheWorkspace_hasNoRealPath_andIsShownAsWrittenWithTheReason() {
        Inspection in = inspect("s-1", "edit_file", "{\"path\":\"src/../../../etc/passwd\",\"old\":\"root\",\"new\":\"toor\"}");

        assertThat(in.target().realPath()).isNull();
        assertThat(in.shown()).startsWith("edit_file {\"path\":\"src/../../../etc/passwd\"").contains("(no preview: ");
    }

    @Test
    void argumentsThatAreNotAJsonObject_areShownAsWritten_withTheReason() {
        Inspection in = inspect("s-1", "run_command", "rm -rf /");

        assertThat(in.shown()).isEqualTo("run_command rm -rf /\n(no preview: the arguments are not a JSON object)");
        assertThat(in.shownSha256()).as("a call shown as written has nothing the executor could work out again").isNull();
    }

    @Test
    void aShownTextTooLargeForAnEvent_goesToTheBlobStore_withItsPreviewInline() throws IOException {
        String big = "x".repeat(5000);

        Inspection in = inspect("s-1", "run_command", "{\"command\":\"echo " + big + "\"}");

        assertThat(in.shownRef()).isNotNull();
        assertThat(in.shown()).hasSize(100).startsWith("echo xxx");
        assertThat(in.shownSha256()).as("of the whole text the tool worked out, not of its preview")
                .isEqualTo(Tool.shownSha256("echo " + big));
        try (var blob = blobs.open("acme", in.shownRef().sha256()).orElseThrow()) {
            assertThat(new String(blob.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("echo " + big);
        }
    }
}
