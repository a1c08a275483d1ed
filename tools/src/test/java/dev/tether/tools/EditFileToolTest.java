package dev.tether.tools;

import static dev.tether.tools.Testbed.args;
import static dev.tether.tools.Testbed.sha256;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EditFileToolTest {

    private static final String TEN_LINES =
            IntStream.rangeClosed(1, 10).mapToObj(i -> "line " + i + "\n").collect(Collectors.joining());

    @TempDir
    Path temp;

    private Testbed bed;
    private final EditFileTool tool = new EditFileTool();

    @BeforeEach
    void setUp() {
        bed = new Testbed(temp);
    }

    @Test
    void replacesTheOneOccurrence_andReturnsTheUnifiedDiff() throws Exception {
        bed.write("f.txt", TEN_LINES);

        ToolOutput output = bed.run(tool, args("path", "f.txt", "old", "line 5\n", "new", "line five\n"));

        assertThat(bed.read("f.txt")).isEqualTo(TEN_LINES.replace("line 5\n", "line five\n"));
        assertThat(output.status()).isEqualTo(ToolOutput.Status.OK);
        assertThat(output.content()).isEqualTo("""
                --- a/f.txt
                +++ b/f.txt
                @@ -2,7 +2,7 @@
                 line 2
                 line 3
                 line 4
                -line 5
                +line five
                 line 6
                 line 7
                 line 8
                """);
        assertThat(output.beforeHash()).isEqualTo(sha256(TEN_LINES));
        assertThat(output.afterHash()).isEqualTo(sha256(TEN_LINES.replace("line 5\n", "line five\n")));
    }

    @Test
    void replacesTextWithinALine_andAcrossLines() throws Exception {
        bed.write("f.txt", "alpha beta\ngamma\ndelta\n");

        bed.run(tool, args("path", "f.txt", "old", "beta\ngam", "new", "B\nG"));

        assertThat(bed.read("f.txt")).isEqualTo("alpha B\nGma\ndelta\n");
    }

    @Test
    void deletesTheText_whenNewIsEmpty() throws Exception {
        bed.write("f.txt", "keep\ndrop\nkeep too\n");

        bed.run(tool, args("path", "f.txt", "old", "drop\n", "new", ""));

        assertThat(bed.read("f.txt")).isEqualTo("keep\nkeep too\n");
    }

    @Test
    void refusesTextThatDoesNotOccur_changingNothing() throws Exception {
        Path file = bed.write("f.txt", "abc\n");
        Object inode = Files.getAttribute(file, "unix:ino");

        assertThat(bed.failure(tool, args("path", "f.txt", "old", "xyz", "new", "q")))
                .hasMessage("argument old: occurs 0 times in f.txt")
                .extracting(ToolException::kind).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
        assertThat(bed.read("f.txt")).isEqualTo("abc\n");
        assertThat(Files.getAttribute(file, "unix:ino")).isEqualTo(inode);
    }

    @Test
    void refusesTextThatOccursMoreThanOnce_unlessAll_changingNothing() throws Exception {
        bed.write("f.txt", "x = 1;\ny = 1;\nz = 1;\n");

        assertThat(bed.failure(tool, args("path", "f.txt", "old", "1;", "new", "2;"))).hasMessage(
                "argument old: occurs 3 times in f.txt; make it unique with more context, or set all to true to "
                        + "replace every occurrence");
        assertThat(bed.read("f.txt")).isEqualTo("x = 1;\ny = 1;\nz = 1;\n");
    }

    @Test
    void replacesEveryOccurrence_whenAll() throws Exception {
        bed.write("f.txt", "x = 1;\ny = 1;\nz = 1;\n");

        ToolOutput output = bed.run(tool, args("path", "f.txt", "old", "1;", "new", "2;", "all", true));

        assertThat(bed.read("f.txt")).isEqualTo("x = 2;\ny = 2;\nz = 2;\n");
        assertThat(output.content().lines().filter(line -> line.startsWith("+") && !line.startsWith("+++")))
                .containsExactly("+x = 2;", "+y = 2;", "+z = 2;");
    }

    @Test
    void countsAndReplacesOccurrences_leftToRight_withoutOverlap() throws Exception {
        bed.write("f.txt", "aaaaa");

        assertThat(bed.failure(tool, args("path", "f.txt", "old", "aa", "new", "b")))
                .hasMessageStartingWith("argument old: occurs 2 times in f.txt");
        bed.run(tool, args("path", "f.txt", "old", "aa", "new", "b", "all", true));
        assertThat(bed.read("f.txt")).isEqualTo("bba");
    }

    /**
     * Replaced everywhere, a short text in a large file can make a file of gigabytes, or one longer than a String can
     * be: building it threw an OutOfMemoryError, an Error rather than the call's result, from the approver's preview
     * too. The size after is known from the count, so such an edit is refused before the text is built.
     */
    @Test
    void refusesAnEditThatWouldMakeTheFileLargerThanTheToolsChange_namingNew_beforeBuildingIt() throws Exception {
        bed.write("big.txt", "a".repeat(8 * 1024 * 1024));
        var arguments = args("path", "big.txt", "old", "a", "new", "b".repeat(300), "all", true);

        for (var call : List.<ThrowingCallable>of(() -> bed.run(tool, arguments),
                () -> tool.shown(bed.workspace, arguments), () -> tool.intent(bed.context(), arguments))) {
            assertThatThrownBy(call).isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.getMessage())
                    .isEqualTo("argument new: replacing 8388608 occurrences would make big.txt 2516582400 bytes; "
                            + "the file tools change files of at most " + FileChange.MAX_FILE_BYTES + " bytes"));
        }
        assertThat(Files.size(bed.root.resolve("big.txt"))).isEqualTo(8 * 1024 * 1024);
        bed.write("small.txt", "a".repeat(1024));
        var justOver = args("path", "small.txt", "old", "a", "new", "b".repeat(64 * 1024 + 1), "all", true);
        assertThat(bed.failure(tool, justOver))
                .hasMessageContaining("would make small.txt 67109888 bytes");
    }

    @Test
    void replacesOnce_whenAllIsFalse_andTheTextIsUnique() throws Exception {
        bed.write("f.txt", "one two\n");

        bed.run(tool, args("path", "f.txt", "old", "two", "new", "2", "all", false));

        assertThat(bed.read("f.txt")).isEqualTo("one 2\n");
    }

    @Test
    void refusesAMissingFile_aBinaryFile_aDirectory_andBadArguments() throws Exception {
        bed.write("data.bin", new byte[] {'a', 0, 'b'});
        Files.createDirectories(bed.root.resolve("dir"));
        bed.write("f.txt", "abc");

        assertThat(bed.failure(tool, args("path", "nope.txt", "old", "a", "new", "b")))
                .hasMessage("argument path: no such file: nope.txt");
        assertThat(bed.failure(tool, args("path", "data.bin", "old", "a", "new", "b")))
                .hasMessage("argument path: data.bin is not UTF-8 text");
        assertThat(bed.failure(tool, args("path", "dir", "old", "a", "new", "b")))
                .hasMessage("argument path: dir is a directory");
        assertThat(bed.failure(tool, args("path", "f.txt", "old", "", "new", "b")))
                .hasMessage("argument old: must not be empty");
        assertThat(bed.failure(tool, args("path", "f.txt", "old", "a")))
                .hasMessage("argument new: is required");
        assertThat(bed.failure(tool, args("path", "f.txt", "old", "a", "new", "b", "all", "yes")))
                .hasMessage("argument all: must be true or false");
        assertThat(bed.root.resolve("nope.txt")).doesNotExist();
        assertThat(bed.read("f.txt")).isEqualTo("abc");
    }

    @Test
    void intent_isTheHashBeforeAndAfter_changingNothing() throws Exception {
        bed.write("f.txt", "old text\n");

        Intent intent = tool.intent(bed.context(), args("path", "f.txt", "old", "old", "new", "new"));

        assertThat(intent).isEqualTo(new Intent(sha256("old text\n"), sha256("new text\n")));
        assertThat(bed.read("f.txt")).isEqualTo("old text\n");
    }

    @Test
    void reconcile_isCompleted_NotApplied_orUnknown_byTheFileHashNow() throws Exception {
        var arguments = args("path", "f.txt", "old", "old", "new", "new");
        bed.write("f.txt", "old text\n");
        LedgerEntry started = LedgerEntry.started("call-1", EditFileTool.NAME, "{}",
                tool.intent(bed.context(), arguments), 1);

        assertThat(tool.reconcile(bed.context(), arguments, started)).isEqualTo(new Reconciliation.NotApplied());

        bed.run(tool, arguments);
        Reconciliation completed = tool.reconcile(bed.context(), arguments, started);
        assertThat(completed).isInstanceOf(Reconciliation.Completed.class);
        assertThat(((Reconciliation.Completed) completed).output().afterHash()).isEqualTo(sha256("new text\n"));
        assertThat(bed.read("f.txt")).isEqualTo("new text\n"); // not replaced a second time

        bed.write("f.txt", "new text, edited again\n");
        assertThat(tool.reconcile(bed.context(), arguments, started)).isInstanceOf(Reconciliation.Unknown.class);
    }

    @Test
    void isMutating_andNotIdempotent() {
        assertThat(tool.mutating()).isTrue();
        assertThat(tool.idempotent()).isFalse();
    }
}
