package dev.tether.approval.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.approval.domain.SessionApprovals.Grant;
import java.time.Instant;
import java.util.List;
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

    // --- scope matching of session grants --------------------------------------------------------

    private static Grant grant(String tool, String glob) {
        return new Grant(7, tool, glob, "alice", Instant.parse("2026-11-29T10:00:00Z"), 0, List.of());
    }

    @Test
    void aSessionGrantForEditFileSrc_authorizesSrcFiles_andNothingElse() {
        Grant grant = grant("edit_file", "src/**");

        assertThat(grant.covers("edit_file", new CallTarget("src/a/b.java", "src/a/b.java"))).isTrue();
        assertThat(grant.covers("edit_file", new CallTarget("test/x.java", "test/x.java"))).isFalse();
        assertThat(grant.covers("edit_file", new CallTarget("src/../etc/passwd", null))).isFalse();
        assertThat(grant.covers("write_file", new CallTarget("src/a/b.java", "src/a/b.java"))).as("another tool").isFalse();
    }

    @Test
    void aPathUnderTheGlob_thatLeadsElsewhereThroughALink_isNotCovered() {
        Grant grant = grant("edit_file", "src/**");

        assertThat(grant.covers("edit_file", new CallTarget("src/link/x.java", "test/x.java"))).isFalse();
        assertThat(grant.covers("edit_file", new CallTarget("src/outside", null))).as("leads out of the workspace").isFalse();
    }

    @Test
    void aGrantWithoutAGlob_coversEveryCallOfItsTool_withAPathOrNot() {
        Grant grant = grant("run_command", null);

        assertThat(grant.covers("run_command", CallTarget.NONE)).isTrue();
        assertThat(grant.covers("edit_file", CallTarget.NONE)).isFalse();
    }

    @Test
    void aGrantWithAGlob_coversNoCallWithoutAPath() {
        assertThat(grant("run_command", "src/**").covers("run_command", CallTarget.NONE)).isFalse();
    }

    @Test
    void aGrantWhoseGlobCannotBeParsed_coversNothing() {
        assertThat(grant("edit_file", "src/[a").covers("edit_file", new CallTarget("src/[a", "src/[a"))).isFalse();
    }
}
