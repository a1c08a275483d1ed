package dev.tether.tools.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunnerConfigTest {

    @Test
    void defaultsTo60Seconds_1MiBOfOutput_1GiBOfMemory_noNetwork_andFailingClosed() {
        RunnerConfig config = RunnerConfig.defaults();

        assertThat(config.timeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(config.outputCapBytes()).isEqualTo(1024 * 1024);
        assertThat(config.memoryLimitBytes()).isEqualTo(1024L * 1024 * 1024);
        assertThat(config.networkAccess()).isFalse();
        assertThat(config.allowNetworkWhenIsolationUnavailable()).isFalse();
        assertThat(config.environment()).isEmpty();
        assertThat(config.sandboxUser()).isEqualTo(SandboxUser.NOBODY);
    }

    @Test
    void refusesHome_invalidNames_andNulCharacters_inTheEnvironment() {
        RunnerConfig config = RunnerConfig.defaults();

        assertThatThrownBy(() -> config.withEnvironment(Map.of("HOME", "/x"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> config.withEnvironment(Map.of("TETHER_COMMAND", "x"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> config.withEnvironment(Map.of("A-B", "x"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> config.withEnvironment(Map.of("A", "x\0y"))).isInstanceOf(IllegalArgumentException.class);
        assertThat(config.withEnvironment(Map.of("PATH", "/opt/bin")).environment()).containsEntry("PATH", "/opt/bin");
    }

    @Test
    void refusesRoot_asTheSandboxUser_sinceTheProcessLimitWouldNotHold() {
        assertThatThrownBy(() -> RunnerConfig.defaults().withSandboxUser(new SandboxUser(0, 0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("root");
    }

    @Test
    void refusesLimits_thatAreNotPositive() {
        RunnerConfig config = RunnerConfig.defaults();

        assertThatThrownBy(() -> config.withTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> config.withOutputCapBytes(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> config.withMemoryLimitBytes(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> config.withMaxProcesses(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void showsEnvironmentNames_butNeverValues() {
        RunnerConfig config = RunnerConfig.defaults().withEnvironment(Map.of("API_TOKEN", "value-never-shown"));

        assertThat(config.toString()).contains("API_TOKEN").doesNotContain("value-never-shown");
    }
}
