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
    void theWildcard_declaresEveryToolNotDeclaredByName_builtInsIncluded_andANameWinsWhateverTheOrder() {
        var star = new HarnessTool("*", false, false, true);
        var send = new HarnessTool("send_email", true, true, false);

        for (List<HarnessTool> tools : List.of(List.of(star, send), List.of(send, star))) {
            assertThat(HarnessTool.find(tools, "send_email")).as("by name, %s", tools).isSameAs(send);
            assertThat(HarnessTool.runnerOf(tools, "send_email")).isEqualTo(CallRunner.HARNESS);
            assertThat(HarnessTool.find(tools, "some_unknown_tool")).as("the wildcard's own entry").isSameAs(star);
            assertThat(HarnessTool.runnerOf(tools, "some_unknown_tool")).isEqualTo(CallRunner.RECORDED);
            assertThat(HarnessTool.runnerOf(tools, "read_file")).as("a built-in tool too").isEqualTo(CallRunner.RECORDED);
            assertThat(HarnessTool.runnerOf(tools, "*")).as("a call of a tool named '*'").isEqualTo(CallRunner.RECORDED);
        }
        assertThat(HarnessTool.runnerOf(List.of(new HarnessTool("*", true, true, false)), "deploy")).isEqualTo(CallRunner.HARNESS);
        assertThat(HarnessTool.find(List.of(send), "some_unknown_tool")).as("without a wildcard: the executor's").isNull();
        assertThat(HarnessTool.runnerOf(List.of(send), "some_unknown_tool")).isEqualTo(CallRunner.EXECUTOR);
        assertThat(star.wildcard()).isTrue();
        assertThat(send.wildcard()).isFalse();
    }

    @Test
    void aDeclaration_hasAtMostOneWildcard_andAReadOnlySessionNoMutatingOne_namingTheEntry() {
        assertThat(start(ToolMode.READ_ONLY, List.of(new HarnessTool("*", false, false, true))).harnessTools()).hasSize(1);

        assertThatThrownBy(() -> start(ToolMode.WRITE, List.of(new HarnessTool("*", false, false, true),
                new HarnessTool("search", false, false, false), new HarnessTool("*", true, false, false))))
                .isInstanceOfSatisfying(InvalidEventException.class, e -> assertThat(e.field()).isEqualTo("harnessTools[2].name"))
                .hasMessageContaining("at most one");
        assertThatThrownBy(() -> start(ToolMode.READ_ONLY, List.of(new HarnessTool("search", false, false, false),
                new HarnessTool("*", true, false, true))))
                .isInstanceOfSatisfying(InvalidEventException.class, e -> assertThat(e.field()).isEqualTo("harnessTools[1].mutating"));
        assertThatThrownBy(() -> new SessionForked("p", 1, "o", "", "m", "v1", ToolMode.READ_ONLY, List.of(),
                List.of(new HarnessTool("*", true, false, false))))
                .isInstanceOfSatisfying(InvalidEventException.class, e -> assertThat(e.field()).isEqualTo("harnessTools[0].mutating"));
        assertThatThrownBy(() -> new HarnessTool("*", false, true, true)).hasMessageContaining("canReconcile");
    }

    @Test
    void aStart_needsItsKeyAnAttemptOfAtLeastOne_andAnEpoch() {
        assertThat(new ToolCallStarted("c1", "s/3/c1", 0, 1).type()).isEqualTo("tool_call_started");
        assertThatThrownBy(() -> new ToolCallStarted("c1", "s/3/c1", 0, 0)).hasMessageContaining("attempt");
        assertThatThrownBy(() -> new ToolCallStarted("c1", "", 0, 1)).hasMessageContaining("idempotencyKey");
        assertThatThrownBy(() -> new ToolCallStarted("c1", "s/3/c1", -1, 1)).hasMessageContaining("epoch");
    }
}
