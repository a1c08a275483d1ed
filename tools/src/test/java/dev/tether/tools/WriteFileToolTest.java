package dev.tether.tools;

import static dev.tether.tools.Testbed.args;
import static dev.tether.tools.Testbed.sha256;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.tether.testing.PlantedSecrets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WriteFileToolTest {

    @TempDir
    Path temp;

    private Testbed bed;
    private final WriteFileTool tool = new WriteFileTool();

    @BeforeEach
    void setUp() {
        bed = new Testbed(temp);
    }

    @Test
    void createsTheFileAndItsDirectories_andReturnsTheDiffAgainstNothing() throws Exception {
        ToolOutput output = bed.run(tool, args("path", "new/dir/f.txt", "content", "one\ntwo\n"));

        assertThat(bed.read("new/dir/f.txt")).isEqualTo("one\ntwo\n");
        assertThat(output.status()).isEqualTo(ToolOutput.Status.OK);
        assertThat(output.content()).isEqualTo("""
                --- /dev/null
                +++ b/new/dir/f.txt
                @@ -0,0 +1,2 @@
                +one
                +two
                """);
        assertThat(output.beforeHash()).isEqualTo("");
        assertThat(output.afterHash()).isEqualTo(sha256("one\ntwo\n"));
    }

    @Test
    void givesWhatItCreates_toTheWorkspaceOwner() throws Exception {
        bed.run(tool, args("path", "made/f.txt", "content", "x"));

        for (Path made : List.of(bed.root.resolve("made"), bed.root.resolve("made/f.txt"))) {
            assertThat(Files.getAttribute(made, "unix:uid", LinkOption.NOFOLLOW_LINKS))
                    .as(made.toString()).isEqualTo(bed.workspace.owner().uid());
        }
    }

    @Test
    void replacesAFile_atomically_byRenamingANewFileOverIt_keepingItsPermissions() throws Exception {
        Path file = bed.write("f.txt", "old\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        Object inodeBefore = Files.getAttribute(file, "unix:ino");

        ToolOutput output = bed.run(tool, args("path", "f.txt", "content", "new\n"));

        assertThat(bed.read("f.txt")).isEqualTo("new\n");
        assertThat(Files.getAttribute(file, "unix:ino")).isNotEqualTo(inodeBefore);
        assertThat(Files.getPosixFilePermissions(file)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        try (Stream<Path> entries = Files.list(bed.root)) {
            assertThat(entries.map(p -> p.getFileName().toString())).containsExactly("f.txt"); // no temporary left
        }
        assertThat(output.content()).isEqualTo("--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-old\n+new\n");
        assertThat(output.beforeHash()).isEqualTo(sha256("old\n"));
        assertThat(output.afterHash()).isEqualTo(sha256("new\n"));
    }

    @Test
    void saysSo_whenTheFileAlreadyHasTheContent() throws Exception {
        bed.write("f.txt", "same\n");

        ToolOutput output = bed.run(tool, args("path", "f.txt", "content", "same\n"));

        assertThat(output.content()).isEqualTo("write_file: f.txt already had this content; nothing changed\n");
        assertThat(output.beforeHash()).isEqualTo(output.afterHash()).isEqualTo(sha256("same\n"));
    }

    @Test
    void writesAnEmptyFile() throws Exception {
        ToolOutput output = bed.run(tool, args("path", "empty.txt", "content", ""));

        assertThat(bed.root.resolve("empty.txt")).exists().isEmptyFile();
        assertThat(output.afterHash()).isEqualTo(sha256(""));
    }

    @Test
    void namesTheHashes_whenReplacingABinaryFile() throws Exception {
        byte[] binary = {0, 1, 2, 3};
        bed.write("data.bin", binary);

        ToolOutput output = bed.run(tool, args("path", "data.bin", "content", "text\n"));

        assertThat(output.content()).isEqualTo("Binary content of data.bin changed: sha256 " + sha256(binary) + " -> "
                + sha256("text\n") + " (5 bytes)\n");
    }

    @Test
    void writesSecretsVerbatim_butRedactsThemFromItsOutput() throws Exception {
        List<PlantedSecrets.Planted> planted = PlantedSecrets.all();
        String content = planted.stream().map(PlantedSecrets.Planted::text).collect(Collectors.joining("\n", "", "\n"));

        ToolOutput output = bed.run(tool, args("path", ".env", "content", content));

        assertThat(bed.read(".env")).isEqualTo(content);
        for (PlantedSecrets.Planted secret : planted) {
            assertThat(output.content()).as(secret.kind()).doesNotContain(secret.secret());
        }
    }

    @Test
    void refusesADirectory_andMissingOrWrongTypedArguments_writingNothing() throws Exception {
        Files.createDirectories(bed.root.resolve("dir"));

        assertThat(bed.failure(tool, args("path", "dir", "content", "x")))
                .hasMessage("argument path: dir is a directory");
        assertThat(bed.failure(tool, args("path", ".", "content", "x"))).hasMessage("argument path: . is a directory");
        assertThat(bed.failure(tool, args("path", "f.txt"))).hasMessage("argument content: is required");
        assertThat(bed.failure(tool, args("path", "f.txt", "content", 42)))
                .hasMessage("argument content: must be a string");
        assertThat(bed.failure(tool, args("content", "x"))).hasMessage("argument path: is required");
        assertThat(bed.root.resolve("f.txt")).doesNotExist();
    }

    @Test
    void writesNothing_whenCancelledBeforeItRuns() throws Exception {
        var cancelled = new CancellationToken();
        cancelled.cancel();

        ToolOutput output = tool.execute(bed.context(cancelled), args("path", "f.txt", "content", "x"));

        assertThat(output.status()).isEqualTo(ToolOutput.Status.CANCELLED);
        assertThat(output.content()).isEqualTo("write_file: cancelled before f.txt was written\n");
        assertThat(output.beforeHash()).isEqualTo(output.afterHash()).isEqualTo("");
        assertThat(bed.root.resolve("f.txt")).doesNotExist();
    }

    @Test
    void intent_isTheHashBefore_emptyForANewFile_andTheHashAfter_changingNothing() throws Exception {
        bed.write("old.txt", "before\n");

        assertThat(tool.intent(bed.context(), args("path", "sub/new.txt", "content", "after\n")))
                .isEqualTo(new Intent("", sha256("after\n")));
        assertThat(tool.intent(bed.context(), args("path", "old.txt", "content", "after\n")))
                .isEqualTo(new Intent(sha256("before\n"), sha256("after\n")));
        assertThat(bed.root.resolve("sub")).doesNotExist();
        assertThat(bed.read("old.txt")).isEqualTo("before\n");
    }

    /**
     * A file of gigabytes (a command makes a sparse one in an instant) was read whole to change it: an OutOfMemoryError
     * failed the executor's batch for ever, and every later call of its partition waited behind it. A file tool refuses
     * it; a reconciliation hashes any size a block at a time.
     */
    @Test
    void aFileLargerThanTheToolsChange_isRefusedNamingPath_andAReconciliationHashesItAnyway() throws Exception {
        Path big = bed.root.resolve("big");
        try (var file = new java.io.RandomAccessFile(big.toFile(), "rw")) {
            file.setLength(FileChange.MAX_FILE_BYTES + 1); // sparse: no disk, but read whole it would not fit
        }
        var arguments = args("path", "big", "content", "x");

        assertThatThrownBy(() -> tool.intent(bed.context(), arguments)).isInstanceOfSatisfying(ToolException.class,
                e -> assertThat(e.getMessage()).contains("path", "at most " + FileChange.MAX_FILE_BYTES));
        assertThat(FileHash.ofFile(big)).hasSize(64);
        assertThat(Files.size(big)).isEqualTo(FileChange.MAX_FILE_BYTES + 1);
    }

    @Test
    void intent_matchesTheHashesTheCallReports() throws Exception {
        bed.write("f.txt", "before\n");
        var arguments = args("path", "f.txt", "content", "after\n");

        Intent intent = tool.intent(bed.context(), arguments);
        ToolOutput output = bed.run(tool, arguments);

        assertThat(new Intent(output.beforeHash(), output.afterHash())).isEqualTo(intent);
    }

    @Test
    void reconcile_isCompleted_whenTheFileHasTheHashTheCallWrites_withoutWritingAgain() throws Exception {
        var arguments = args("path", "f.txt", "content", "after\n");
        Path file = bed.write("f.txt", "before\n");
        LedgerEntry started = started(tool.intent(bed.context(), arguments));
        bed.run(tool, arguments); // the crash came after the write, before the result was recorded
        FileTime written = FileTime.from(Instant.parse("2020-01-01T00:00:00Z"));
        Files.setLastModifiedTime(file, written);
        Object inode = Files.getAttribute(file, "unix:ino");

        Reconciliation found = tool.reconcile(bed.context(), arguments, started);

        assertThat(found).isInstanceOf(Reconciliation.Completed.class);
        ToolOutput output = ((Reconciliation.Completed) found).output();
        assertThat(output.status()).isEqualTo(ToolOutput.Status.OK);
        assertThat(output.beforeHash()).isEqualTo(sha256("before\n"));
        assertThat(output.afterHash()).isEqualTo(sha256("after\n"));
        assertThat(output.content()).isEqualTo("write_file: f.txt has the content the interrupted call writes (sha256 "
                + sha256("after\n") + "): the call completed\n");
        assertThat(Files.getLastModifiedTime(file)).isEqualTo(written);
        assertThat(Files.getAttribute(file, "unix:ino")).isEqualTo(inode);
    }

    @Test
    void reconcile_isNotApplied_whenTheFileStillHasTheHashFromBefore() throws Exception {
        var arguments = args("path", "f.txt", "content", "after\n");
        bed.write("f.txt", "before\n");

        Reconciliation found = tool.reconcile(bed.context(), arguments, started(tool.intent(bed.context(), arguments)));

        assertThat(found).isEqualTo(new Reconciliation.NotApplied());
        assertThat(bed.read("f.txt")).isEqualTo("before\n");
    }

    @Test
    void reconcile_isNotApplied_whenANewFileIsStillAbsent() throws Exception {
        var arguments = args("path", "f.txt", "content", "after\n");

        Reconciliation found = tool.reconcile(bed.context(), arguments, started(tool.intent(bed.context(), arguments)));

        assertThat(found).isEqualTo(new Reconciliation.NotApplied());
        assertThat(bed.root.resolve("f.txt")).doesNotExist();
    }

    @Test
    void reconcile_isUnknown_whenSomethingElseChangedTheFile() throws Exception {
        var arguments = args("path", "f.txt", "content", "after\n");
        bed.write("f.txt", "before\n");
        LedgerEntry started = started(tool.intent(bed.context(), arguments));
        bed.write("f.txt", "someone else's\n");

        Reconciliation found = tool.reconcile(bed.context(), arguments, started);

        assertThat(found).isInstanceOf(Reconciliation.Unknown.class);
        assertThat(((Reconciliation.Unknown) found).why()).isEqualTo("write_file: f.txt has sha256 "
                + sha256("someone else's\n") + ", neither the " + sha256("before\n")
                + " it had before the call nor the " + sha256("after\n")
                + " the call writes: something else changed it");
        assertThat(bed.read("f.txt")).isEqualTo("someone else's\n");
    }

    @Test
    void reconcile_isUnknown_whenTheFileWasDeleted_orTheEntryHasNoHashes_orThePathNowLeadsOutside() throws Exception {
        var arguments = args("path", "f.txt", "content", "after\n");
        bed.write("f.txt", "before\n");
        LedgerEntry started = started(tool.intent(bed.context(), arguments));
        Files.delete(bed.root.resolve("f.txt"));

        assertThat(tool.reconcile(bed.context(), arguments, started))
                .isEqualTo(new Reconciliation.Unknown("write_file: f.txt has sha256 (absent), neither the "
                        + sha256("before\n") + " it had before the call nor the " + sha256("after\n")
                        + " the call writes: something else changed it"));
        assertThat(tool.reconcile(bed.context(), arguments, started(Intent.NONE)))
                .isEqualTo(new Reconciliation.Unknown("write_file: the STARTED entry has no file hashes to compare"));
        Files.createSymbolicLink(bed.root.resolve("f.txt"), Path.of("/etc/hostname"));
        assertThat(tool.reconcile(bed.context(), arguments, started)).isInstanceOf(Reconciliation.Unknown.class)
                .extracting(found -> ((Reconciliation.Unknown) found).why()).asString()
                .startsWith("write_file: cannot check the file: argument path: path \"f.txt\" is refused");
    }

    /** Opened to be hashed, a FIFO put where the file was would have held the reconciliation until a writer came. */
    @Test
    void reconcile_isUnknown_withoutOpeningIt_whenThePathIsNowAFifo() throws Exception {
        var arguments = args("path", "f.txt", "content", "after\n");
        bed.write("f.txt", "before\n");
        LedgerEntry started = started(tool.intent(bed.context(), arguments));
        Files.delete(bed.root.resolve("f.txt"));
        Process mkfifo = new ProcessBuilder("mkfifo", bed.root.resolve("f.txt").toString()).start();
        assertThat(mkfifo.waitFor()).isZero();

        Reconciliation found = assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> tool.reconcile(bed.context(), arguments, started));

        assertThat(found).isEqualTo(new Reconciliation.Unknown("write_file: cannot hash f.txt: not a regular file"));
    }

    @Test
    void isMutating_andNotIdempotent() {
        assertThat(tool.mutating()).isTrue();
        assertThat(tool.idempotent()).isFalse();
    }

    private static LedgerEntry started(Intent intent) {
        return LedgerEntry.started("call-1", WriteFileTool.NAME, "{}", intent, 1);
    }
}
