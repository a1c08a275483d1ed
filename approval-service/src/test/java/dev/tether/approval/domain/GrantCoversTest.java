package dev.tether.approval.domain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.approval.domain.SessionApprovals.Grant;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Scope matching of session grants: which later calls a grant authorizes without asking. */
class GrantCoversTest {

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
