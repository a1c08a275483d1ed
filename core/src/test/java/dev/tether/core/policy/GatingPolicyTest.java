package dev.tether.core.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.core.event.ToolMode;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class GatingPolicyTest {

    /** The built-in tools, as the tools module's registry names them (this module cannot see it). */
    private static final Set<String> TOOLS = Set.of("read_file", "list_dir", "grep", "http_fetch", "write_file", "edit_file",
            "run_command");

    @Test
    void byDefault_writeToolsCommandsAndFetchesAreGated_readToolsAreNot() {
        GatingPolicy policy = GatingPolicy.defaults();

        assertThat(policy.gated("acme", ToolMode.WRITE, "edit_file")).isTrue();
        assertThat(policy.gated("acme", ToolMode.WRITE, "run_command")).isTrue();
        assertThat(policy.gated("acme", ToolMode.READ_ONLY, "http_fetch")).isTrue();
        assertThat(policy.gated("acme", ToolMode.READ_ONLY, "read_file")).isFalse();
        assertThat(policy.gated("acme", ToolMode.WRITE, "grep")).isFalse();
    }

    @Test
    void aTenantsOverride_replacesTheDefaultForThatModeOnly() {
        GatingPolicy policy = GatingPolicy.of("write_file,edit_file,run_command,http_fetch", Map.of("acme.WRITE", "run_command",
                "globex.read_only", ""), TOOLS);

        assertThat(policy.gated("acme", ToolMode.WRITE, "edit_file")).isFalse();
        assertThat(policy.gated("acme", ToolMode.WRITE, "run_command")).isTrue();
        assertThat(policy.gated("acme", ToolMode.READ_ONLY, "http_fetch")).isTrue();
        assertThat(policy.gated("globex", ToolMode.READ_ONLY, "http_fetch")).isFalse();
        assertThat(policy.gated("initech", ToolMode.WRITE, "edit_file")).isTrue();
    }

    @Test
    void aCallMatchedByTheWildcard_isGatedByItsOwnName_andByWhatTheWildcardSaysItIs() {
        var readOnlyStar = new dev.tether.core.event.HarnessTool("*", false, false, false);
        var mutatingStar = new dev.tether.core.event.HarnessTool("*", true, false, false);

        GatingPolicy defaults = GatingPolicy.defaults();
        assertThat(defaults.gated("acme", ToolMode.WRITE, "lookup_ticket", readOnlyStar)).as("read-only: not gated").isFalse();
        assertThat(defaults.gated("acme", ToolMode.WRITE, "run_command", readOnlyStar)).as("the call is named like a gated tool")
                .isTrue();
        assertThat(defaults.gated("acme", ToolMode.WRITE, "lookup_ticket", mutatingStar)).as("mutating: gated").isTrue();
        assertThat(GatingPolicy.of("write_file", Map.of(), TOOLS, "none", Map.of()).gated("acme", ToolMode.WRITE, "write_file",
                readOnlyStar)).as("by name, whatever the harness gating").isTrue();
    }

    @Test
    void harnessRunTools_areGatedByWhatTheyAre_perTenantAndMode_andByNameWhenTheyShareAGatedToolsName() {
        var send = new dev.tether.core.event.HarnessTool("send_email", true, false, false);
        var search = new dev.tether.core.event.HarnessTool("search", false, false, false);
        var ownRunCommand = new dev.tether.core.event.HarnessTool("run_command", false, false, false);

        GatingPolicy defaults = GatingPolicy.defaults();
        assertThat(defaults.gated("acme", ToolMode.WRITE, "send_email", send)).as("mutating: gated by default").isTrue();
        assertThat(defaults.gated("acme", ToolMode.WRITE, "search", search)).as("read-only: not gated by default").isFalse();
        assertThat(defaults.gated("acme", ToolMode.WRITE, "run_command", ownRunCommand)).as("the name of a gated tool").isTrue();

        GatingPolicy policy = GatingPolicy.of("write_file", Map.of(), TOOLS, "none", Map.of("acme.WRITE", "all", "globex.read_only", "mutating"));
        assertThat(policy.gated("acme", ToolMode.WRITE, "search", search)).isTrue();
        assertThat(policy.gated("acme", ToolMode.READ_ONLY, "send_email", send)).isFalse();
        assertThat(policy.gated("globex", ToolMode.READ_ONLY, "send_email", send)).isTrue();
        assertThat(policy.gated("initech", ToolMode.WRITE, "send_email", send)).isFalse();
        assertThatThrownBy(() -> GatingPolicy.of("write_file", Map.of(), TOOLS, "some", Map.of()))
                .hasMessage("tether.policy.harness-gated: 'some' is none of mutating, all, none");
        assertThatThrownBy(() -> GatingPolicy.of("write_file", Map.of(), TOOLS, "all", Map.of("acme.ADMIN", "all")))
                .hasMessageContaining("tether.policy.harness-overrides.\"acme.ADMIN\"").hasMessageContaining("unknown tool mode");
    }

    @Test
    void malformedConfiguration_isRefused_namingTheEntry() {
        assertThatThrownBy(() -> GatingPolicy.of("edit_file,Rm -rf", Map.of(), TOOLS)).hasMessageContaining("tether.policy.gated")
                .hasMessageContaining("'Rm -rf'");
        assertThatThrownBy(() -> GatingPolicy.of("edit_file", Map.of("acme.ADMIN", "x"), TOOLS)).hasMessageContaining("acme.ADMIN")
                .hasMessageContaining("unknown tool mode");
        assertThatThrownBy(() -> GatingPolicy.of("edit_file", Map.of("acme", "x"), TOOLS)).hasMessageContaining("<tenant>.<READ_ONLY|WRITE>");
    }

    @Test
    void twoKeysForOneTenantAndMode_areRefused_ratherThanOneOfThemWinningByTheMapsOrder() {
        // "acme.WRITE" and "acme.write" are one tenant and mode: which list applied would depend on the map's order
        var overrides = new java.util.LinkedHashMap<String, String>();
        overrides.put("acme.WRITE", "write_file,run_command");
        overrides.put("acme.write", "");
        assertThatThrownBy(() -> GatingPolicy.of("write_file", overrides, TOOLS)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tether.policy.overrides").hasMessageContaining("acme.WRITE").hasMessageContaining("acme.write");
        var harness = new java.util.LinkedHashMap<String, String>();
        harness.put("acme.READ_ONLY", "all");
        harness.put("acme.read_only", "none");
        assertThatThrownBy(() -> GatingPolicy.of("write_file", Map.of(), TOOLS, "mutating", harness))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tether.policy.harness-overrides")
                .hasMessageContaining("acme.READ_ONLY").hasMessageContaining("acme.read_only");
    }

    @Test
    void aMisspeltGatedTool_isRefused_namingTheSettingTheNameAndTheTools_ratherThanLeavingTheRealToolUngated() {
        assertThatThrownBy(() -> GatingPolicy.of("write_file,edit_flie,run_command", Map.of(), TOOLS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("tether.policy.gated: 'edit_flie' is not a known tool")
                .hasMessageEndingWith("the tools are edit_file, grep, http_fetch, list_dir, read_file, run_command, write_file");
    }

    @Test
    void aMisspeltToolInAnOverride_isRefused_namingTheOverridesKey() {
        assertThatThrownBy(() -> GatingPolicy.of("edit_file", Map.of("acme.WRITE", "run_command, edit_flie"), TOOLS))
                .hasMessageStartingWith("tether.policy.overrides.\"acme.WRITE\": 'edit_flie' is not a known tool")
                .hasMessageContaining("edit_file, grep");
    }

    @Test
    void aCustomToolTheServiceKnows_mayBeGated() {
        GatingPolicy policy = GatingPolicy.of("deploy", Map.of(), Set.of("read_file", "deploy"));

        assertThat(policy.gated("acme", ToolMode.WRITE, "deploy")).isTrue();
        assertThatThrownBy(() -> GatingPolicy.of("deploy", Map.of(), TOOLS)).hasMessageContaining("'deploy' is not a known tool");
    }
}
