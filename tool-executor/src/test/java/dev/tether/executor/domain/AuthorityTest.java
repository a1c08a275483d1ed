package dev.tether.executor.domain;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.ToolMode;
import dev.tether.core.policy.GatingPolicy;
import dev.tether.tools.HttpFetchPolicy;
import dev.tether.tools.Tool;
import dev.tether.tools.ToolRegistry;
import dev.tether.tools.sandbox.SandboxUser;
import dev.tether.tools.sandbox.Workspace;
import dev.tether.tools.sandbox.WorkspaceRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuthorityTest {

    private static final ToolRegistry TOOLS = ToolRegistry.builder().addBuiltIns(HttpFetchPolicy.denyAll()).build();
    private final Authority authority = new Authority(TOOLS,
            GatingPolicy.of("write_file,edit_file,run_command,http_fetch", Map.of("globex.WRITE", "run_command"), TOOLS.names()));

    @Test
    void aReadOnlySession_cannotCallAWriteTool_whateverItsBasis() {
        var verdict = authority.check("acme", ToolMode.READ_ONLY, "write_file", AuthorizationBasis.approval(7));
        assertThat(verdict).isInstanceOf(Authority.Refused.class);
        assertThat(((Authority.Refused) verdict).reason())
                .contains("'write_file' is not available to READ_ONLY sessions").contains("read_file");
    }

    @Test
    void aToolOutsideTheRegistry_isRefused() {
        assertThat(authority.check("acme", ToolMode.WRITE, "rm_rf", AuthorizationBasis.POLICY)).isInstanceOf(Authority.Refused.class);
    }

    @Test
    void aGatedTool_needsAnApproval_aPolicyBasisIsNotEnough() {
        var refused = authority.check("acme", ToolMode.WRITE, "edit_file", AuthorizationBasis.POLICY);
        assertThat(refused).isInstanceOf(Authority.Refused.class);
        assertThat(((Authority.Refused) refused).reason()).contains("needs a human's approval");
        var allowed = authority.check("acme", ToolMode.WRITE, "edit_file", AuthorizationBasis.approval(12));
        assertThat(allowed).isInstanceOf(Authority.Allowed.class);
        assertThat(((Authority.Allowed) allowed).tool().name()).isEqualTo("edit_file");
    }

    @Test
    void anUngatedTool_runsOnPolicy() {
        assertThat(authority.check("acme", ToolMode.READ_ONLY, "read_file", AuthorizationBasis.POLICY))
                .isInstanceOf(Authority.Allowed.class);
    }

    @Test
    void aTenantOverride_changesWhatIsGated_forThatTenantAndModeOnly() {
        assertThat(authority.check("globex", ToolMode.WRITE, "edit_file", AuthorizationBasis.POLICY)).isInstanceOf(Authority.Allowed.class);
        assertThat(authority.check("globex", ToolMode.WRITE, "run_command", AuthorizationBasis.POLICY)).isInstanceOf(Authority.Refused.class);
        assertThat(authority.check("acme", ToolMode.WRITE, "edit_file", AuthorizationBasis.POLICY)).isInstanceOf(Authority.Refused.class);
    }

    @Test
    void aBasisOfAnUnknownKind_neverSuffices_evenForAnUngatedTool() {
        var verdict = authority.check("acme", ToolMode.READ_ONLY, "read_file", new AuthorizationBasis(AuthorizationBasis.Kind.UNKNOWN, null, null));
        assertThat(verdict).isInstanceOf(Authority.Refused.class);
    }

    @Test
    void anApprovalOfWhatWasShown_holdsWhileTheToolShowsTheSame_andNoHashComparesNothing(@TempDir Path dir) throws Exception {
        Workspace workspace = new WorkspaceRoot(dir, SandboxUser.current()).open("acme", "s-1");
        Tool edit = TOOLS.forMode(ToolMode.WRITE).find("edit_file").orElseThrow();
        JsonNode arguments = new ObjectMapper().readTree("{\"path\":\"a.txt\",\"old\":\"one\",\"new\":\"two\"}");
        Files.writeString(workspace.root().resolve("a.txt"), "one\n");
        var shown = AuthorizationBasis.approvalOfShown(7, Tool.shownSha256(edit.shown(workspace, arguments)));

        assertThat(Authority.unlikeShown(shown, () -> edit.shown(workspace, arguments))).isEmpty();
        assertThat(Authority.unlikeShown(AuthorizationBasis.approval(7), () -> edit.shown(workspace, arguments))).isEmpty();

        Files.delete(workspace.root().resolve("a.txt"));
        assertThat(Authority.unlikeShown(shown, () -> edit.shown(workspace, arguments))).get().extracting(Authority.Refused::reason)
                .asString().startsWith("refused: what the call would do cannot be worked out again to compare it with what the"
                        + " approval at seq 7 was given on (argument path: no such file: a.txt)");
        assertThat(Authority.unlikeShown(AuthorizationBasis.approval(7), () -> edit.shown(workspace, arguments))).as("nothing to compare")
                .isEmpty();
    }
}
