package dev.tether.executor.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.core.event.ToolMode;
import dev.tether.executor.config.ExecutorConfig;
import dev.tether.tools.HttpFetchPolicy;
import dev.tether.tools.HttpFetchTool;
import dev.tether.tools.Tool;
import dev.tether.tools.ToolRegistry;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The tools the executor runs calls with: the same per mode as the approval-service previews (its KafkaSetupTest). */
class ExecutorToolsTest {

    @Test
    void theToolsPerMode_areTheBuiltIns() {
        ToolRegistry tools = Executor.tools(new Http(Optional.empty(), false));

        assertThat(tools.forMode(ToolMode.READ_ONLY).names()).containsExactly("grep", "http_fetch", "list_dir", "read_file");
        assertThat(tools.forMode(ToolMode.WRITE).names())
                .containsExactly("edit_file", "grep", "http_fetch", "list_dir", "read_file", "run_command", "write_file");
        assertThat(tools.forMode(ToolMode.WRITE).names()).isEqualTo(ToolRegistry.builtIn(List.of()).forMode(ToolMode.WRITE).names());
    }

    @Test
    void httpFetch_allowsTheConfiguredHosts_andNoneWhenUnset() throws Exception {
        var json = new ObjectMapper();
        Tool configured = Executor.tools(new Http(Optional.of(List.of("docs.example.org")), false)).forMode(ToolMode.READ_ONLY).find("http_fetch")
                .orElseThrow();
        Tool unset = Executor.tools(new Http(Optional.empty(), false)).forMode(ToolMode.READ_ONLY).find("http_fetch").orElseThrow();

        assertThat(configured.shown(null, json.readTree("{\"url\":\"https://docs.example.org/a\"}"))).startsWith("GET https://docs.example.org/a");
        assertThatThrownBy(() -> unset.shown(null, json.readTree("{\"url\":\"https://docs.example.org/a\"}")))
                .hasMessageContaining("not on the http_fetch allowlist");
    }

    @Test
    void httpFetch_refusesPrivateAddresses_unlessConfigured() {
        assertThat(httpFetch(new Http(Optional.of(List.of("intranet")), false)).policy().privateAddresses()).isFalse();
        assertThat(httpFetch(new Http(Optional.of(List.of("intranet")), true)).policy())
                .isEqualTo(HttpFetchPolicy.allowing(List.of("intranet")).withPrivateAddresses(true));
    }

    private static HttpFetchTool httpFetch(ExecutorConfig.Http http) {
        return (HttpFetchTool) Executor.tools(http).forMode(ToolMode.READ_ONLY).find("http_fetch").orElseThrow();
    }

    private record Http(Optional<List<String>> allowedHosts, boolean allowPrivateAddresses) implements ExecutorConfig.Http {}
}
