package dev.tether.tools;

import static dev.tether.tools.Testbed.args;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GrepToolTest {

    @TempDir
    Path temp;

    private Testbed bed;
    private final GrepTool tool = new GrepTool();

    @BeforeEach
    void setUp() throws Exception {
        bed = new Testbed(temp);
        bed.write("src/main/App.java", "package app;\nimport java.util.List;\nclass App {\n  // TODO: more\n}\n");
        bed.write("src/test/AppTest.java", "import org.junit.Test;\r\nclass AppTest {} // TODO later\r\n");
        bed.write("src/Root.java", "// TODO root\n");
        bed.write("notes.md", "TODO: write the docs\nnothing here\n");
    }

    @Test
    void findsMatchingLines_asPathLineText_sortedByPath() throws Exception {
        ToolOutput output = bed.run(tool, args("pattern", "TODO"));

        assertThat(output.status()).isEqualTo(ToolOutput.Status.OK);
        assertThat(output.content()).isEqualTo("""
                notes.md:1:TODO: write the docs
                src/Root.java:1:// TODO root
                src/main/App.java:4:  // TODO: more
                src/test/AppTest.java:2:class AppTest {} // TODO later
                """);
    }

    @Test
    void quotesAPath_thatCouldFakeAMatch() throws Exception {
        bed.write("odd/a\nsrc/Main.java:1:TODO injected", "TODO here\n");

        assertThat(bed.run(tool, args("pattern", "TODO", "path", "odd")).content())
                .isEqualTo("\"odd/a\\nsrc/Main.java:1:TODO injected\":1:TODO here\n");
    }

    @Test
    void takesTheRegexAsJavaRegex() throws Exception {
        assertThat(bed.run(tool, args("pattern", "^import\\s+java\\.")).content())
                .isEqualTo("src/main/App.java:2:import java.util.List;\n");
        assertThat(bed.run(tool, args("pattern", "TODO:? (more|later)$")).content()).isEqualTo("""
                src/main/App.java:4:  // TODO: more
                src/test/AppTest.java:2:class AppTest {} // TODO later
                """);
    }

    @Test
    void searchesBelowPath_orOneFile() throws Exception {
        assertThat(bed.run(tool, args("pattern", "TODO", "path", "src/main")).content())
                .isEqualTo("src/main/App.java:4:  // TODO: more\n");
        assertThat(bed.run(tool, args("pattern", "TODO", "path", "notes.md")).content())
                .isEqualTo("notes.md:1:TODO: write the docs\n");
    }

    @Test
    void filtersByGlob_onTheNameOrWithASlashOnTheRelativePath() throws Exception {
        assertThat(bed.run(tool, args("pattern", "TODO", "glob", "*.md")).content())
                .isEqualTo("notes.md:1:TODO: write the docs\n");
        assertThat(bed.run(tool, args("pattern", "TODO", "glob", "src/*/*.java")).content()).isEqualTo("""
                src/main/App.java:4:  // TODO: more
                src/test/AppTest.java:2:class AppTest {} // TODO later
                """);
    }

    @Test
    void saysSo_whenNothingMatches() throws Exception {
        assertThat(bed.run(tool, args("pattern", "FIXME")).content()).isEqualTo("(no matches)\n");
    }

    @Test
    void skipsBinaryFiles_andLinks() throws Exception {
        bed.write("blob.bin", new byte[] {'T', 'O', 'D', 'O', 0, 1});
        Files.createSymbolicLink(bed.root.resolve("notes-link.md"), Path.of("notes.md"));
        Files.createSymbolicLink(bed.root.resolve("etc"), Path.of("/etc"));

        String found = bed.run(tool, args("pattern", "TODO|root:")).content();

        assertThat(found).doesNotContain("blob.bin", "notes-link.md", "etc/");
        assertThat(found.lines()).hasSize(4);
    }

    @Test
    void stopsAtMaxMatches_andSaysSo() throws Exception {
        bed.write("many.txt", "match\n".repeat(GrepTool.MAX_MATCHES + 100));

        String found = bed.run(tool, args("pattern", "match", "path", "many.txt")).content();

        assertThat(found.lines().filter(line -> line.startsWith("many.txt:"))).hasSize(GrepTool.MAX_MATCHES);
        assertThat(found).endsWith("many.txt:500:match\n[grep: stopped at 500 matches]\n");
    }

    @Test
    void cutsLongMatchedLines_whenShowingThem() throws Exception {
        bed.write("long.txt", "needle" + "x".repeat(2000) + "\n");

        String found = bed.run(tool, args("pattern", "needle", "path", "long.txt")).content();

        assertThat(found).isEqualTo("long.txt:1:needle" + "x".repeat(GrepTool.SHOWN_LINE_CHARS - 6) + "…\n");
    }

    @Test
    void redactsTheBeginningOfASecret_thatCuttingALongLineLeaves() throws Exception {
        bed.write("long.txt", "needle" + "x".repeat(GrepTool.SHOWN_LINE_CHARS - 16) + "Zq8k2LmW9xR4tY7p\n");
        ToolContext context = bed.context();
        context.redactor().registerSecret("db", "Zq8k2LmW9xR4tY7p"); // as the executor registers every configured one

        String found = tool.execute(context, args("pattern", "needle", "path", "long.txt")).content();

        assertThat(found).isEqualTo("long.txt:1:needle" + "x".repeat(GrepTool.SHOWN_LINE_CHARS - 16)
                + "[REDACTED:secret:db]…\n");
    }

    @Test
    void stopsACatastrophicPattern_atItsTimeout_keepingTheMatchesFoundSoFar() throws Exception {
        bed.write("a-first.txt", "hit\n");
        bed.write("b-trap.txt", "a".repeat(30) + "!\n");
        var quick = new GrepTool(Duration.ofMillis(300));

        long start = System.nanoTime();
        ToolOutput output = bed.run(quick, args("pattern", "(.*a){12}$|hit", "glob", "*.txt"));
        long tookMs = (System.nanoTime() - start) / 1_000_000;

        assertThat(output.status()).isEqualTo(ToolOutput.Status.ERROR);
        assertThat(output.content()).isEqualTo("a-first.txt:1:hit\n[grep: stopped after 300 ms; simplify the pattern "
                + "(nested quantifiers backtrack) or narrow path or glob]\n");
        assertThat(tookMs).isLessThan(5_000);
    }

    @Test
    void stopsAtItsTimeout_aPatternSlowOnManyShortLines_eachTooShortForTheTextsOwnCheck() throws Exception {
        // (x+x+)+y reads a line of 18 x's some 3,300 times: under the 4,096 reads the text checks the clock at, so
        // before the check per line, 100,000 such lines ran for many seconds past a timeout of 200 ms, and OK
        bed.write("short-lines.txt", ("x".repeat(18) + "\n").repeat(100_000));
        var quick = new GrepTool(Duration.ofMillis(200));

        long start = System.nanoTime();
        ToolOutput output = bed.run(quick, args("pattern", "(x+x+)+y", "path", "short-lines.txt"));
        long tookMs = (System.nanoTime() - start) / 1_000_000;

        assertThat(output.status()).isEqualTo(ToolOutput.Status.ERROR);
        assertThat(output.content()).isEqualTo("(no matches)\n[grep: stopped after 200 ms; simplify the pattern "
                + "(nested quantifiers backtrack) or narrow path or glob]\n");
        assertThat(tookMs).isLessThan(3_000);
    }

    @Test
    void stopsAtItsTimeout_whileWalkingATreeTheGlobDoesNotMatch() throws Exception {
        for (int d = 0; d < 50; d++) {
            for (int f = 0; f < 40; f++) {
                bed.write("deps/d" + d + "/f" + f + ".js", "");
            }
        }
        var quick = new GrepTool(Duration.ofNanos(1)); // past before the first of the 2,000 files is visited

        ToolOutput output = bed.run(quick, args("pattern", "TODO", "glob", "*.none"));

        assertThat(output.status()).isEqualTo(ToolOutput.Status.ERROR);
        assertThat(output.content()).startsWith("(no matches)\n[grep: stopped after 0 ms;");
    }

    @Test
    void stopsAtItsTimeout_aGlobThatBacktracksOnALongName() throws Exception {
        // matched by the JDK's PathMatcher, out of the deadline's reach, this glob took minutes on the one name
        bed.write("a".repeat(200), "TODO\n");
        var quick = new GrepTool(Duration.ofMillis(300));

        ToolOutput output = assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> bed.run(quick, args("pattern", "TODO", "glob", "*a*a*a*a*a*b")));

        assertThat(output.status()).isEqualTo(ToolOutput.Status.ERROR);
        assertThat(output.content()).startsWith("(no matches)\n[grep: stopped after 300 ms;");
    }

    @Test
    void stopsWhenCancelled() throws Exception {
        var cancelled = new CancellationToken();
        cancelled.cancel();

        ToolOutput output = tool.execute(bed.context(cancelled), args("pattern", "TODO"));

        assertThat(output.status()).isEqualTo(ToolOutput.Status.CANCELLED);
        assertThat(output.content()).isEqualTo("(no matches)\n[grep: cancelled]\n");
    }

    @Test
    void refusesAnInvalidPattern_glob_orPath() {
        assertThat(bed.failure(tool, args("pattern", "(unclosed")))
                .hasMessageStartingWith("argument pattern: Unclosed group near index");
        assertThat(bed.failure(tool, args("pattern", "x", "glob", "[")))
                .hasMessage("argument glob: is not a valid glob");
        assertThat(bed.failure(tool, args("pattern", "x", "path", "nope")))
                .hasMessage("argument path: no such file or directory: nope");
        assertThat(bed.failure(tool, args("pattern", ""))).hasMessage("argument pattern: must not be empty");
        assertThatThrownBy(() -> new GrepTool(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void isReadOnlyAndIdempotent() {
        var started = LedgerEntry.started("call-1", GrepTool.NAME, "{\"pattern\":\"x\"}", Intent.NONE, 1);

        assertThat(tool.mutating()).isFalse();
        assertThat(tool.idempotent()).isTrue();
        assertThat(tool.reconcile(bed.context(), args("pattern", "x"), started))
                .isEqualTo(new Reconciliation.NotApplied());
    }
}
