package dev.tether.core.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HarnessToolTest {

    private static SessionStarted start(ToolMode mode, List<HarnessTool> tools) {
        return new SessionStarted("objective", "", "model", "v1", mode, List.of(), null, null, tools);
    }

    @Test
    void aDeclaration_fixesWhoRunsEachTool_andTheExecutorRunsTheRest() {
        var tools = List.of(new HarnessTool("send_email", true, true, false), new HarnessTool("search", false, false, true));

        assertThat(HarnessTool.runnerOf(tools, "send_email")).isEqualTo(CallRunner.HARNESS);
        assertThat(HarnessTool.runnerOf(tools, "search")).isEqualTo(CallRunner.RECORDED);
        assertThat(HarnessTool.runnerOf(tools, "read_file")).isEqualTo(CallRunner.EXECUTOR);
        assertThat(start(ToolMode.WRITE, null).harnessTools()).as("none declared").isEmpty();
        assertThat(new SessionStarted("o", "", "m", "v1", ToolMode.WRITE, List.of(), null, null).harnessTools()).isEmpty();
    }

    @Test
    void refuses_aMutatingToolInAReadOnlySession_aNameTwice_tooManyTools_andRecordedOnlyWithReconcile_namingTheField() {
        assertThatThrownBy(() -> start(ToolMode.READ_ONLY, List.of(new HarnessTool("search", false, false, false),
                new HarnessTool("send_email", true, false, false))))
                .isInstanceOf(InvalidEventException.class).hasMessageContaining("harnessTools[1].mutating");
        assertThatThrownBy(() -> start(ToolMode.WRITE, List.of(new HarnessTool("a", false, false, false),
                new HarnessTool("a", true, false, false))))
                .isInstanceOf(InvalidEventException.class).hasMessageContaining("harnessTools[1].name");
        var many = new ArrayList<HarnessTool>();
        for (int i = 0; i <= HarnessTool.MAX_TOOLS; i++) {
            many.add(new HarnessTool("t" + i, false, false, false));
        }
        assertThatThrownBy(() -> start(ToolMode.WRITE, many)).isInstanceOf(InvalidEventException.class).hasMessageContaining("harnessTools");
        assertThatThrownBy(() -> new HarnessTool("a", false, true, true))
                .isInstanceOf(InvalidEventException.class).hasMessageContaining("canReconcile");
        assertThatThrownBy(() -> new HarnessTool(" ", false, false, false))
                .isInstanceOf(InvalidEventException.class).hasMessageContaining("name");
        assertThatThrownBy(() -> new HarnessTool("x".repeat(HarnessTool.MAX_NAME + 1), false, false, false))
                .isInstanceOf(InvalidEventException.class).hasMessageContaining("name");
    }

    @Test
    void aStart_needsItsKeyAnAttemptOfAtLeastOne_andAnEpoch() {
        assertThat(new ToolCallStarted("c1", "s/3/c1", 0, 1).type()).isEqualTo("tool_call_started");
        assertThatThrownBy(() -> new ToolCallStarted("c1", "s/3/c1", 0, 0)).hasMessageContaining("attempt");
        assertThatThrownBy(() -> new ToolCallStarted("c1", "", 0, 1)).hasMessageContaining("idempotencyKey");
        assertThatThrownBy(() -> new ToolCallStarted("c1", "s/3/c1", -1, 1)).hasMessageContaining("epoch");
    }
}
