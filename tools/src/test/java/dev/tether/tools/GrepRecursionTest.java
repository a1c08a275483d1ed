package dev.tether.tools;

import static dev.tether.tools.Testbed.args;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A grep pattern whose matching recurses once per character (a group with an alternation under a quantifier) overflows
 * the stack of the thread it runs on; the error must become the call's result, not escape the tool: the executor
 * catches only {@link ToolException} and {@link RuntimeException}, so a {@link StackOverflowError} fails the whole
 * batch, which is rewound and retried for ever (the call is STARTED, reconciled NotApplied, run again).
 */
class GrepRecursionTest {

    @TempDir
    Path temp;

    private Testbed bed;

    @BeforeEach
    void setUp() throws Exception {
        bed = new Testbed(temp);
        bed.write("long.txt", "a".repeat(9_000) + "\n");
    }

    /** Runs the call on a thread of the default stack size, as the executor's {@code tool-call} workers are. */
    private Object runOnWorker(Tool tool, com.fasterxml.jackson.databind.JsonNode arguments) throws Exception {
        var result = new AtomicReference<Object>();
        Thread worker = new Thread(() -> {
            try {
                result.set(tool.execute(bed.context(), arguments));
            } catch (Throwable t) {
                result.set(t);
            }
        }, "tool-call-test");
        worker.start();
        worker.join();
        return result.get();
    }

    @Test
    void aPatternThatRecursesPerCharacter_isAnErrorResult_notAStackOverflowThatEscapes() throws Exception {
        Object outcome = runOnWorker(new GrepTool(), args("pattern", "(a|b)*c"));

        assertThat(outcome).isInstanceOf(ToolOutput.class);
        assertThat(((ToolOutput) outcome).status()).isEqualTo(ToolOutput.Status.ERROR);
    }

    @Test
    void aDeeplyNestedPattern_isRefusedOrAnErrorResult_notAStackOverflowThatEscapes() throws Exception {
        String nested = "(".repeat(20_000) + "a" + ")".repeat(20_000);
        Object outcome = runOnWorker(new GrepTool(), args("pattern", nested));

        assertThat(outcome).satisfiesAnyOf(
                o -> assertThat(o).isInstanceOf(ToolException.class),
                o -> assertThat(o).isInstanceOf(ToolOutput.class));
    }
}
