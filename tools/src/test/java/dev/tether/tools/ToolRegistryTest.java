package dev.tether.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.core.event.ToolMode;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ToolRegistryTest {

    private static final ToolRegistry BUILT_INS = ToolRegistry.builder().addBuiltIns(HttpFetchPolicy.denyAll()).build();
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void readOnlySessions_getTheFourToolsThatOnlyRead() {
        ToolSet readOnly = BUILT_INS.forMode(ToolMode.READ_ONLY);

        assertThat(readOnly.mode()).isEqualTo(ToolMode.READ_ONLY);
        assertThat(readOnly.names()).containsExactly("grep", "http_fetch", "list_dir", "read_file");
        for (String writer : Set.of("write_file", "edit_file", "run_command")) {
            assertThat(readOnly.find(writer)).as(writer).isEmpty();
        }
        assertThat(readOnly.find("read_file")).get().isInstanceOf(ReadFileTool.class);
    }

    @Test
    void writeSessions_getAllSevenBuiltIns() {
        ToolSet write = BUILT_INS.forMode(ToolMode.WRITE);

        assertThat(write.names()).containsExactly(
                "edit_file", "grep", "http_fetch", "list_dir", "read_file", "run_command", "write_file");
        assertThat(write.find("run_command")).get().isInstanceOf(RunCommandTool.class);
        assertThat(write.find("no_such_tool")).isEmpty();
    }

    @Test
    void theRegistrysNames_areEveryToolOfEveryMode_whatAGatingPolicyMayName() {
        assertThat(BUILT_INS.names()).containsExactly(
                "edit_file", "grep", "http_fetch", "list_dir", "read_file", "run_command", "write_file");
    }

    @Test
    void everyBuiltIn_isNamedAsItsSetFindsIt_andOnlyTheReadOnlyOnesAreNonMutatingAndIdempotent() {
        ToolSet readOnly = BUILT_INS.forMode(ToolMode.READ_ONLY);
        for (String name : BUILT_INS.forMode(ToolMode.WRITE).names()) {
            Tool tool = BUILT_INS.forMode(ToolMode.WRITE).find(name).orElseThrow();
            boolean readsOnly = readOnly.find(name).isPresent();

            assertThat(tool.name()).isEqualTo(name);
            assertThat(tool.mutating()).as(name).isEqualTo(!readsOnly);
            assertThat(tool.idempotent()).as(name).isEqualTo(readsOnly);
        }
    }

    @Test
    void theDeploymentsRegistry_isTheBuiltIns_withHttpFetchAllowingTheConfiguredHosts() throws Exception {
        ToolRegistry registry = ToolRegistry.builtIn(List.of("docs.example.org"));

        assertThat(registry.forMode(ToolMode.READ_ONLY).names()).isEqualTo(BUILT_INS.forMode(ToolMode.READ_ONLY).names());
        assertThat(registry.forMode(ToolMode.WRITE).names()).isEqualTo(BUILT_INS.forMode(ToolMode.WRITE).names());
        Tool fetch = registry.forMode(ToolMode.READ_ONLY).find("http_fetch").orElseThrow();
        assertThat(fetch.shown(null, JSON.readTree("{\"url\":\"https://docs.example.org/a\"}"))).isEqualTo("GET https://docs.example.org/a\n");
        assertThatThrownBy(() -> fetch.shown(null, JSON.readTree("{\"url\":\"https://elsewhere.example.org/a\"}")))
                .isInstanceOf(ToolException.class).hasMessageContaining("not on the http_fetch allowlist");
        Tool none = ToolRegistry.builtIn(List.of()).forMode(ToolMode.READ_ONLY).find("http_fetch").orElseThrow();
        assertThatThrownBy(() -> none.shown(null, JSON.readTree("{\"url\":\"https://docs.example.org/a\"}")))
                .hasMessageContaining("which is empty");
    }

    @Test
    void refusesAMutatingTool_asReadOnly() {
        ToolRegistry.Builder builder = ToolRegistry.builder();

        assertThatThrownBy(() -> builder.add(new WriteFileTool(), ToolMode.READ_ONLY))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("write_file is mutating, so it cannot be READ_ONLY");
        assertThatThrownBy(() -> builder.add(new Custom("deploy", true), ToolMode.READ_ONLY))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(builder.build().forMode(ToolMode.WRITE).names()).isEmpty();
    }

    @Test
    void putsACustomReadOnlyTool_inBothSets_andAWriteToolInTheWriteSetOnly() {
        ToolRegistry registry = ToolRegistry.builder()
                .add(new Custom("lookup", false), ToolMode.READ_ONLY)
                .add(new Custom("deploy", true), ToolMode.WRITE)
                .add(new Custom("inspect", false), ToolMode.WRITE)
                .build();

        assertThat(registry.forMode(ToolMode.READ_ONLY).names()).containsExactly("lookup");
        assertThat(registry.forMode(ToolMode.WRITE).names()).containsExactly("deploy", "inspect", "lookup");
    }

    @Test
    void refusesADuplicateName_inEitherMode() {
        ToolRegistry.Builder builder = ToolRegistry.builder().addBuiltIns(HttpFetchPolicy.denyAll());

        assertThatThrownBy(() -> builder.add(new Custom("read_file", false), ToolMode.WRITE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a tool named read_file is registered already");
        assertThatThrownBy(() -> builder.add(new Custom("run_command", false), ToolMode.READ_ONLY))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a tool named run_command is registered already");
        assertThat(builder.build().forMode(ToolMode.READ_ONLY).find("run_command")).isEmpty();
    }

    @Test
    void refusesAnInvalidName() {
        for (String name : new String[] {"", "Read_file", "1tool", "with-dash", "with space", "x".repeat(65)}) {
            assertThatThrownBy(() -> ToolRegistry.builder().add(new Custom(name, false), ToolMode.WRITE))
                    .as(name).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tool name must match");
        }
        assertThatThrownBy(() -> ToolRegistry.builder().add(new Custom(null, false), ToolMode.WRITE))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** A tool that does nothing, for registering. */
    private record Custom(String name, boolean mutating) implements Tool {
        @Override
        public boolean idempotent() {
            return !mutating;
        }

        @Override
        public ToolOutput execute(ToolContext context, JsonNode arguments) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Reconciliation reconcile(ToolContext context, JsonNode arguments, LedgerEntry started) {
            return new Reconciliation.NotApplied();
        }
    }
}
