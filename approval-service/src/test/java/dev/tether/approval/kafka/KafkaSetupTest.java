package dev.tether.approval.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.approval.config.ApprovalConfig;
import dev.tether.approval.config.WorkspaceConfig;
import dev.tether.core.event.ToolMode;
import dev.tether.kit.service.TetherConfig;
import dev.tether.tools.ToolRegistry;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The policy the service starts with, built by {@link KafkaSetup} from configuration as Quarkus builds it at start-up
 * (the topology needs it), with the configuration interfaces answered by hand instead of by SmallRye Config.
 */
class KafkaSetupTest {

    @TempDir
    Path dir;

    @Test
    void aMisspeltToolInAnOverride_stopsTheStart_namingTheKeyTheNameAndTheTools() {
        KafkaSetup setup = setup("write_file,edit_file,run_command,http_fetch", Map.of("acme.WRITE", "run_command,edit_flie"));

        assertThatThrownBy(() -> setup.policy(setup.tools())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tether.policy.overrides.\"acme.WRITE\"")
                .hasMessageContaining("'edit_flie' is not a known tool")
                .hasMessageContaining("edit_file, grep, http_fetch, list_dir, read_file, run_command, write_file");
    }

    @Test
    void aMisspeltDefaultGatedTool_stopsTheStart() {
        KafkaSetup setup = setup("write_file,edit_flie,run_command,http_fetch", Map.of());

        assertThatThrownBy(() -> setup.policy(setup.tools())).hasMessageContaining("tether.policy.gated")
                .hasMessageContaining("'edit_flie'");
    }

    @Test
    void theDefaultPolicy_startsAndGatesTheWriteTools() {
        KafkaSetup setup = setup("write_file,edit_file,run_command,http_fetch", Map.of());

        assertThat(setup.policy(setup.tools()).gated("acme", ToolMode.WRITE, "edit_file")).isTrue();
    }

    @Test
    void theToolsPerMode_areTheBuiltInsTheExecutorRuns() {
        // the executor's ExecutorToolsTest asserts the same lists: both services build ToolRegistry.builtIn
        ToolRegistry tools = setup("write_file,edit_file,run_command,http_fetch", Map.of()).tools();

        assertThat(tools.forMode(ToolMode.READ_ONLY).names()).containsExactly("grep", "http_fetch", "list_dir", "read_file");
        assertThat(tools.forMode(ToolMode.WRITE).names())
                .containsExactly("edit_file", "grep", "http_fetch", "list_dir", "read_file", "run_command", "write_file");
        assertThat(tools.forMode(ToolMode.WRITE).names()).isEqualTo(ToolRegistry.builtIn(List.of()).forMode(ToolMode.WRITE).names());
    }

    private KafkaSetup setup(String gated, Map<String, String> overrides) {
        TetherConfig.Policy policy = answering(TetherConfig.Policy.class, Map.of("gated", gated, "overrides", overrides,
                "harnessGated", "mutating", "harnessOverrides", Map.of()));
        TetherConfig config = answering(TetherConfig.class, Map.of("policy", policy));
        ApprovalConfig approvals = answering(ApprovalConfig.class, Map.of("httpAllowedHosts", Optional.empty(),
                "scratchDir", dir.resolve("scratch"), "blobsDir", dir.resolve("blobs")));
        WorkspaceConfig workspaces = answering(WorkspaceConfig.class, Map.of("root", dir.resolve("workspaces")));
        return new KafkaSetup(config, approvals, workspaces);
    }

    /** A configuration interface answering its methods from {@code values}, its default methods as written. */
    private static <T> T answering(Class<T> type, Map<String, Object> values) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.isDefault()) {
                return InvocationHandler.invokeDefault(proxy, method, args);
            }
            if (!values.containsKey(method.getName())) {
                throw new UnsupportedOperationException(type.getSimpleName() + "." + method.getName() + " is not needed here");
            }
            return values.get(method.getName());
        };
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler));
    }
}
