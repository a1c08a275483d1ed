package dev.tether.tools;

import static dev.tether.tools.Testbed.args;
import static dev.tether.tools.Testbed.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.core.event.ToolMode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Arguments every built-in refuses alike, before doing anything: the refusal names the argument, and the workspace
 * is left as it was.
 */
class ToolArgumentsTest {

    private static final ToolSet BUILT_INS = ToolRegistry.builder()
            .addBuiltIns(HttpFetchPolicy.allowing(Set.of("127.0.0.1"))).build().forMode(ToolMode.WRITE);

    /** For each tool, arguments that would be valid; a test spoils them one way at a time. */
    private static final Map<String, ObjectNode> VALID = Map.of(
            ReadFileTool.NAME, args("path", "a.txt"),
            ListDirTool.NAME, args("path", "."),
            GrepTool.NAME, args("pattern", "x"),
            HttpFetchTool.NAME, args("url", "http://127.0.0.1:9/"),
            WriteFileTool.NAME, args("path", "made.txt", "content", "x"),
            EditFileTool.NAME, args("path", "a.txt", "old", "a", "new", "b"),
            RunCommandTool.NAME, args("command", "touch made.txt"));

    @TempDir
    Path temp;

    private Testbed bed;

    @BeforeEach
    void setUp() throws Exception {
        bed = new Testbed(temp);
        bed.write("a.txt", "a");
    }

    static Stream<String> tools() {
        return BUILT_INS.names().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tools")
    void refusesAnUnknownArgument_listingTheOnesTheToolTakes(String name) {
        Tool tool = BUILT_INS.find(name).orElseThrow();
        ObjectNode arguments = VALID.get(name).deepCopy().put("sudo", true);

        ToolException refused = bed.failure(tool, arguments);

        assertThat(refused.kind()).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
        assertThat(refused.getMessage()).startsWith("argument sudo: unknown; this tool takes [");
        assertThat(refused.getMessage()).contains(VALID.get(name).fieldNames().next());
        assertNothingHappened();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tools")
    void refusesArgumentsThatAreNotAnObject(String name) {
        Tool tool = BUILT_INS.find(name).orElseThrow();

        for (String notAnObject : List.of("[]", "\"path\"", "null", "42")) {
            assertThat(bed.failure(tool, json(notAnObject))).as(notAnObject)
                    .hasMessage("argument arguments: must be a JSON object");
        }
        assertNothingHappened();
    }

    static Stream<Arguments> requiredArguments() {
        return Stream.of(
                Arguments.of(ReadFileTool.NAME, "path"),
                Arguments.of(GrepTool.NAME, "pattern"),
                Arguments.of(HttpFetchTool.NAME, "url"),
                Arguments.of(WriteFileTool.NAME, "path"),
                Arguments.of(WriteFileTool.NAME, "content"),
                Arguments.of(EditFileTool.NAME, "path"),
                Arguments.of(EditFileTool.NAME, "old"),
                Arguments.of(EditFileTool.NAME, "new"),
                Arguments.of(RunCommandTool.NAME, "command"));
    }

    @ParameterizedTest(name = "{0} without {1}")
    @MethodSource("requiredArguments")
    void refusesAMissingArgument_andTreatsNullAsMissing(String name, String argument) {
        Tool tool = BUILT_INS.find(name).orElseThrow();
        ObjectNode missing = VALID.get(name).deepCopy();
        missing.remove(argument);
        ObjectNode nulled = VALID.get(name).deepCopy();
        nulled.putNull(argument);

        assertThat(bed.failure(tool, missing)).hasMessage("argument " + argument + ": is required");
        assertThat(bed.failure(tool, nulled)).hasMessage("argument " + argument + ": is required");
        assertNothingHappened();
    }

    @ParameterizedTest(name = "{0} with a number for {1}")
    @MethodSource("requiredArguments")
    void refusesAWrongTypedArgument(String name, String argument) {
        Tool tool = BUILT_INS.find(name).orElseThrow();
        ObjectNode wrong = VALID.get(name).deepCopy().put(argument, 7);

        assertThat(bed.failure(tool, wrong)).hasMessage("argument " + argument + ": must be a string");
        assertNothingHappened();
    }

    @Test
    void refusesAWrongTypedOptionalArgument() {
        assertThat(bed.failure(BUILT_INS.find(ListDirTool.NAME).orElseThrow(), args("path", List.of("a"))))
                .hasMessage("argument path: must be a string");
        assertThat(bed.failure(BUILT_INS.find(GrepTool.NAME).orElseThrow(), args("pattern", "x", "glob", false)))
                .hasMessage("argument glob: must be a string");
    }

    private void assertNothingHappened() {
        assertThat(bed.root.resolve("made.txt")).doesNotExist();
        assertThat(bed.root.resolve("a.txt")).hasContent("a");
    }
}
