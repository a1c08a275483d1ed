package dev.tether.common.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.common.event.ToolMode;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GatingPolicyTest {

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
                "globex.read_only", ""));

        assertThat(policy.gated("acme", ToolMode.WRITE, "edit_file")).isFalse();
        assertThat(policy.gated("acme", ToolMode.WRITE, "run_command")).isTrue();
        assertThat(policy.gated("acme", ToolMode.READ_ONLY, "http_fetch")).isTrue();
        assertThat(policy.gated("globex", ToolMode.READ_ONLY, "http_fetch")).isFalse();
        assertThat(policy.gated("initech", ToolMode.WRITE, "edit_file")).isTrue();
    }

    @Test
    void malformedConfiguration_isRefused_namingTheEntry() {
        assertThatThrownBy(() -> GatingPolicy.of("edit_file,Rm -rf", Map.of())).hasMessageContaining("tether.policy.gated")
                .hasMessageContaining("'Rm -rf'");
        assertThatThrownBy(() -> GatingPolicy.of("edit_file", Map.of("acme.ADMIN", "x"))).hasMessageContaining("acme.ADMIN")
                .hasMessageContaining("unknown tool mode");
        assertThatThrownBy(() -> GatingPolicy.of("edit_file", Map.of("acme", "x"))).hasMessageContaining("<tenant>.<READ_ONLY|WRITE>");
    }
}
