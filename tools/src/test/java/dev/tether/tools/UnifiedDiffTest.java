package dev.tether.tools;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class UnifiedDiffTest {

    private static final Path GNU_DIFF = Path.of("/usr/bin/diff");
    private static final Path GNU_PATCH = Path.of("/usr/bin/patch");

    @TempDir
    Path temp;

    @Test
    void isEmpty_whenTheTextsAreEqual() {
        assertThat(UnifiedDiff.of("a/f", "b/f", "same\ntext\n", "same\ntext\n")).isEmpty();
        assertThat(UnifiedDiff.of("a/f", "b/f", "", "")).isEmpty();
    }

    @Test
    void showsAChangedLine_withThreeLinesOfContext_andLeavesOutACountOfOne() {
        String before = lines(1, 10);
        String after = before.replace("line 5\n", "line five\n");

        assertThat(UnifiedDiff.of("a/f.txt", "b/f.txt", before, after)).isEqualTo("""
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
        assertThat(UnifiedDiff.of("a/f.txt", "b/f.txt", "one\n", "two\n")).isEqualTo("""
                --- a/f.txt
                +++ b/f.txt
                @@ -1 +1 @@
                -one
                +two
                """);
    }

    @Test
    void showsANewFile_againstDevNull_fromLineZero() {
        assertThat(UnifiedDiff.of("/dev/null", "b/new.txt", "", "a\nb\n")).isEqualTo("""
                --- /dev/null
                +++ b/new.txt
                @@ -0,0 +1,2 @@
                +a
                +b
                """);
    }

    @Test
    void showsEmptiedContent_asARangeAtLineZero() {
        assertThat(UnifiedDiff.of("a/f", "b/f", "a\nb\n", "")).isEqualTo("""
                --- a/f
                +++ b/f
                @@ -1,2 +0,0 @@
                -a
                -b
                """);
    }

    @Test
    void marksALastLineWithoutNewline_onTheSideThatLacksIt() {
        assertThat(UnifiedDiff.of("a/f", "b/f", "x\nlast", "x\nlast\n")).isEqualTo("""
                --- a/f
                +++ b/f
                @@ -1,2 +1,2 @@
                 x
                -last
                \\ No newline at end of file
                +last
                """);
        assertThat(UnifiedDiff.of("a/f", "b/f", "x\nold", "x\nnew")).isEqualTo("""
                --- a/f
                +++ b/f
                @@ -1,2 +1,2 @@
                 x
                -old
                \\ No newline at end of file
                +new
                \\ No newline at end of file
                """);
    }

    @Test
    void splitsChangesMoreThanSixLinesApart_intoTwoHunks_andJoinsCloserOnes() {
        String before = lines(1, 20);
        String apart = before.replace("line 2\n", "two\n").replace("line 10\n", "ten\n"); // 7 lines between
        String close = before.replace("line 2\n", "two\n").replace("line 9\n", "nine\n"); // 6 lines between

        assertThat(UnifiedDiff.of("a/f", "b/f", before, apart)).contains("@@ -1,5 +1,5 @@\n", "@@ -7,7 +7,7 @@\n");
        assertThat(UnifiedDiff.of("a/f", "b/f", before, close)).contains("@@ -1,12 +1,12 @@\n")
                .doesNotContain("@@ -6");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            one changed line          | 1,2,3,4,5,6,7,8,9,10      | 1,2,3,4,X,6,7,8,9,10
            two hunks                 | 1,2,3,4,5,6,7,8,9,10,11,12,13,14 | 1,X,3,4,5,6,7,8,9,10,11,12,Y,14
            insertion at the start    | 1,2,3,4,5                 | X,Y,1,2,3,4,5
            insertion at the end      | 1,2,3,4,5                 | 1,2,3,4,5,X
            deletion in the middle    | 1,2,3,4,5,6,7,8,9         | 1,2,3,7,8,9
            change next to a deletion | 1,2,3,4,5,6,7,8           | 1,2,X,5,6,7,8
            new file                  | ''                        | 1,2,3
            everything removed        | 1,2,3                     | ''
            """)
    void matchesGnuDiff_onChangesWithOneMinimalDiff(String name, String before, String after) throws Exception {
        assertThat(UnifiedDiff.of("a/f", "b/f", numbered(before), numbered(after)))
                .isEqualTo(gnuDiff(numbered(before), numbered(after)));
    }

    @Test
    void matchesGnuDiff_onMissingFinalNewlines() throws Exception {
        for (String[] pair : List.of(
                new String[] {"a\nb\nc", "a\nb\nc\n"},
                new String[] {"a\nb\nc\n", "a\nb\nc"},
                new String[] {"a\nb\nc", "a\nB\nc"},
                new String[] {"a", ""},
                new String[] {"", "a"})) {
            assertThat(UnifiedDiff.of("a/f", "b/f", pair[0], pair[1])).as(pair[0] + " -> " + pair[1])
                    .isEqualTo(gnuDiff(pair[0], pair[1]));
        }
    }

    @Test
    void producesDiffsThatGnuPatchApplies_toGetTheNewText() throws Exception {
        assumeTrue(Files.isExecutable(GNU_PATCH), "no " + GNU_PATCH);
        var random = new Random(42);
        for (int i = 0; i < 200; i++) {
            String before = randomText(random);
            String after = random.nextInt(8) == 0 ? randomText(random) : edited(random, before);

            String diff = UnifiedDiff.of("a/f", "b/f", before, after);

            assertThat(patched(before, diff)).as("case %d: %s -> %s\n%s", i, before, after, diff).isEqualTo(after);
        }
    }

    @Test
    @Timeout(20)
    void stillDiffsCompletelyDifferentLargeTexts_quickly_showingTheMiddleReplacedWhole() throws Exception {
        String before = "head\n" + numberedLines("old ", 30_000) + "tail\n";
        String after = "head\n" + numberedLines("new ", 30_000) + "tail\n";

        String diff = UnifiedDiff.of("a/f", "b/f", before, after);

        assertThat(diff).startsWith("--- a/f\n+++ b/f\n@@ -1,30002 +1,30002 @@\n head\n-old 0\n");
        assertThat(diff).contains("-old 29999\n+new 0\n").endsWith("+new 29999\n tail\n");
        assertThat(diff.lines().filter(line -> line.startsWith("@@"))).hasSize(1);
        if (Files.isExecutable(GNU_PATCH)) {
            assertThat(patched(before, diff)).isEqualTo(after);
        }
    }

    @Test
    void diffsLineByLine_upToTheMaximumEditDistance() {
        int changed = UnifiedDiff.MAX_EDIT_DISTANCE / 2 - 1; // each changed line is one removal and one addition
        var before = new StringBuilder();
        var after = new StringBuilder();
        for (int i = 0; i < changed; i++) {
            before.append("same ").append(i).append("\nold ").append(i).append('\n');
            after.append("same ").append(i).append("\nnew ").append(i).append('\n');
        }

        String diff = UnifiedDiff.of("a/f", "b/f", before.toString(), after.toString());

        assertThat(diff.lines().filter(line -> line.startsWith(" same "))).hasSize(changed);
    }

    /** Lines {@code <prefix>0} to {@code <prefix><count - 1>}. */
    private static String numberedLines(String prefix, int count) {
        return IntStream.range(0, count).mapToObj(i -> prefix + i + "\n").collect(Collectors.joining());
    }

    /** Lines {@code line <from>} to {@code line <to>}. */
    private static String lines(int from, int to) {
        return IntStream.rangeClosed(from, to).mapToObj(i -> "line " + i + "\n").collect(Collectors.joining());
    }

    /** {@code "1,2,X"} as the text {@code "1\n2\nX\n"}; {@code ""} as empty. */
    private static String numbered(String commaSeparated) {
        return commaSeparated.isEmpty() ? "" : String.join("\n", commaSeparated.split(",")) + "\n";
    }

    private String gnuDiff(String before, String after) throws Exception {
        assumeTrue(Files.isExecutable(GNU_DIFF), "no " + GNU_DIFF);
        Path old = Files.writeString(temp.resolve("old"), before);
        Path fresh = Files.writeString(temp.resolve("new"), after);
        return run(GNU_DIFF.toString(), "-u", "--label", "a/f", "--label", "b/f", old.toString(), fresh.toString());
    }

    private String patched(String before, String diff) throws Exception {
        if (diff.isEmpty()) {
            return before;
        }
        Path file = Files.writeString(temp.resolve("patched"), before);
        Path patch = Files.writeString(temp.resolve("diff"), diff);
        Path out = temp.resolve("patched.out");
        Files.deleteIfExists(out);
        run(GNU_PATCH.toString(), "--quiet", "--force", "-o", out.toString(), file.toString(), patch.toString());
        return Files.readString(out);
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), UTF_8);
        process.waitFor();
        return output;
    }

    /** A few short lines from a small alphabet, so that lines repeat; sometimes without a final newline. */
    private static String randomText(Random random) {
        var text = new StringBuilder();
        int lines = random.nextInt(20);
        for (int i = 0; i < lines; i++) {
            text.append((char) ('a' + random.nextInt(6))).append('\n');
        }
        if (text.length() > 0 && random.nextInt(4) == 0) {
            text.setLength(text.length() - 1);
        }
        return text.toString();
    }

    private static String edited(Random random, String text) {
        var lines = new ArrayList<>(UnifiedDiff.lines(text));
        for (int edits = random.nextInt(5); edits > 0; edits--) {
            int at = lines.isEmpty() ? 0 : random.nextInt(lines.size());
            switch (lines.isEmpty() ? 0 : random.nextInt(3)) {
                case 0 -> lines.add(at, "new " + random.nextInt(100) + "\n");
                case 1 -> lines.remove(at);
                default -> lines.set(at, "changed " + random.nextInt(100) + (lines.get(at).endsWith("\n") ? "\n" : ""));
            }
        }
        String edited = String.join("", lines);
        return random.nextInt(6) == 0 && edited.endsWith("\n") ? edited.substring(0, edited.length() - 1) : edited;
    }
}
