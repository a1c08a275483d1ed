package dev.tether.core.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class PathGlobTest {

    @ParameterizedTest(name = "{0} matches {1}: {2}")
    @CsvSource({
            "src/**, src/a/b.java, true",
            "src/**, src/Main.java, true",
            "src/**, test/x.java, false",
            "src/**, src/../etc/passwd, false",
            "src/**, ./src/a.java, false",
            "src/**, /src/a.java, false",
            "src/**, src//a.java, false",
            "src/**, srcx/a.java, false",
            "src/**/*.java, src/a/b/C.java, true",
            "src/**/*.java, src/C.java, true",
            "src/**/*.java, src/a/C.kt, false",
            "*.md, README.md, true",
            "*.md, docs/README.md, false",
            "docs/?.md, docs/a.md, true",
            "docs/?.md, docs/ab.md, false",
            "**, anything/at/all.txt, true",
            "a/*/c, a/b/c, true",
            "a/*/c, a/b/x/c, false",
    })
    void matches_segmentWise(String glob, String path, boolean expected) {
        assertThat(PathGlob.parse(glob).matches(path)).isEqualTo(expected);
    }

    @Test
    void aPathWithABackslashOrAControlCharacter_isMatchedByNothing() {
        assertThat(PathGlob.parse("**").matches("src\\..\\etc")).isFalse();
        assertThat(PathGlob.parse("**").matches("src/a\u0000b")).isFalse();
        assertThat(PathGlob.parse("**").matches("")).isFalse();
        assertThat(PathGlob.parse("**").matches(null)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "/etc/**", "src/../etc", "./src", "src//a", "src/", "src/a**", "**b", "src/[ab].java", "src/{a,b}",
            "src\\a", "src/\u0001"})
    void refusesAGlobThatCouldBeReadTwoWays(String glob) {
        assertThatThrownBy(() -> PathGlob.parse(glob)).isInstanceOf(PathGlob.InvalidGlobException.class).hasMessageNotContaining("null");
    }

    @Test
    void refusesAGlobTooLong_namingTheLimit() {
        assertThatThrownBy(() -> PathGlob.parse("a/".repeat(300) + "b")).hasMessageContaining("at most 512");
    }

    @Test
    void coversACall_onlyWhenThePathAsWritten_andWhereItLeads_bothFallUnderIt() {
        PathGlob glob = PathGlob.parse("src/**");

        assertThat(glob.covers("src/a/b.java", "src/a/b.java")).isTrue();
        assertThat(glob.covers("src/link/x.java", "test/x.java")).as("through a link to elsewhere").isFalse();
        assertThat(glob.covers("test/link", "src/x.java")).as("written elsewhere").isFalse();
        assertThat(glob.covers("src/outside", null)).as("leads out of the workspace").isFalse();
        assertThat(glob.covers(null, null)).as("no path").isFalse();
    }

    /**
     * The path is the model's choice, matched on the stream thread against every grant of the session: a matcher that
     * backtracks to every earlier star took minutes on these (exponential in the stars). The limit only says "not that";
     * a match takes microseconds.
     */
    @Test
    void aModelChosenPath_againstGlobsOfManyStars_isMatchedAtOnce() {
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            assertThat(PathGlob.parse("src/**/*_*_*_*_*.java").matches("src/" + "_".repeat(250))).isFalse();
            assertThat(PathGlob.parse("**/*a*a*a*a*a*a*b").matches("x/" + "a".repeat(200))).isFalse();
            assertThat(PathGlob.parse("**/".repeat(12) + "x").matches("a/".repeat(200) + "b")).isFalse();
            assertThat(PathGlob.parse("**/".repeat(12) + "x").matches("a/".repeat(200) + "x")).isTrue();
        });
    }

    /** Against the plain recursive matcher (exponential, but exact), on many small globs and paths of a few letters. */
    @Test
    void matching_isTheSameAsTryingEverySplit() {
        var random = new Random(20261205);
        String[] globParts = {"a", "b", "*", "?", "a*", "*b", "a?b", "**", "*a*"};
        String[] names = {"a", "b", "ab", "ba", "aab", "abb", "aaba", "b"};
        for (int i = 0; i < 20_000; i++) {
            var glob = new StringBuilder();
            for (int s = 1 + random.nextInt(4); s > 0; s--) {
                glob.append(glob.isEmpty() ? "" : "/").append(globParts[random.nextInt(globParts.length)]);
            }
            var path = new StringBuilder();
            for (int s = 1 + random.nextInt(5); s > 0; s--) {
                path.append(path.isEmpty() ? "" : "/").append(names[random.nextInt(names.length)]);
            }
            List<String> segments = List.of(glob.toString().split("/"));
            assertThat(PathGlob.parse(glob.toString()).matches(path.toString())).as("%s against %s", glob, path)
                    .isEqualTo(everySplit(segments, 0, List.of(path.toString().split("/")), 0));
        }
    }

    private static boolean everySplit(List<String> glob, int g, List<String> path, int p) {
        if (g == glob.size()) {
            return p == path.size();
        }
        if (glob.get(g).equals("**")) {
            for (int skip = p; skip <= path.size(); skip++) {
                if (everySplit(glob, g + 1, path, skip)) {
                    return true;
                }
            }
            return false;
        }
        return p < path.size() && everySplit(glob.get(g), 0, path.get(p), 0) && everySplit(glob, g + 1, path, p + 1);
    }

    private static boolean everySplit(String glob, int g, String name, int n) {
        if (g == glob.length()) {
            return n == name.length();
        }
        if (glob.charAt(g) == '*') {
            for (int rest = n; rest <= name.length(); rest++) {
                if (everySplit(glob, g + 1, name, rest)) {
                    return true;
                }
            }
            return false;
        }
        return n < name.length() && (glob.charAt(g) == '?' || glob.charAt(g) == name.charAt(n)) && everySplit(glob, g + 1, name, n + 1);
    }
}
