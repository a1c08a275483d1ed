package dev.tether.tools;

import static dev.tether.tools.Testbed.args;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every tool with a path argument, given every way out of the workspace: each call is REFUSED, naming the argument
 * and the path as given, and nothing outside changes. Writes aim at a directory beside the workspace, and through
 * links to {@code /etc} only at a name that does not exist there.
 */
class PathConfinementTest {

    /** A name nothing in /etc has: a write that escaped would create it, which {@link #removeEscapedWrites} undoes. */
    private static final String ETC_CANARY = "tether-confinement-canary";

    @TempDir
    Path temp;

    private Testbed bed;
    private Path outside;

    @BeforeEach
    void setUp() throws IOException {
        bed = new Testbed(temp);
        outside = Files.createDirectories(temp.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), "outside content\n");
        Files.createSymbolicLink(bed.root.resolve("etc"), Path.of("/etc"));
        Files.createSymbolicLink(bed.root.resolve("outside-dir"), outside);
        Files.createSymbolicLink(bed.root.resolve("outside-file"), outside.resolve("secret.txt"));
        Files.createSymbolicLink(bed.root.resolve("chain-1"), Path.of("chain-2")); // chain-1 -> chain-2 -> outside
        Files.createSymbolicLink(bed.root.resolve("chain-2"), outside.resolve("secret.txt"));
        Files.createSymbolicLink(bed.root.resolve("to-nothing"), outside.resolve("not-yet.txt"));
        Files.createDirectories(bed.root.resolve("inner"));
        Files.createSymbolicLink(bed.root.resolve("inner/up"), Path.of("../../..")); // up to temp
    }

    @AfterEach
    void removeEscapedWrites() throws IOException {
        Files.deleteIfExists(Path.of("/etc", ETC_CANARY));
    }

    /** A tool with the arguments that aim it at a path. */
    private record Aimed(String name, Tool tool, Function<String, ObjectNode> at) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static final List<Aimed> TOOLS = List.of(
            new Aimed("read_file", new ReadFileTool(), path -> args("path", path)),
            new Aimed("list_dir", new ListDirTool(), path -> args("path", path)),
            new Aimed("grep", new GrepTool(), path -> args("pattern", ".", "path", path)),
            new Aimed("write_file", new WriteFileTool(), path -> args("path", path, "content", "escaped\n")),
            new Aimed("edit_file", new EditFileTool(), path -> args("path", path, "old", "outside", "new", "escaped")));

    /** Paths for reading: they name what exists outside. */
    private static final Map<String, String> READ_ESCAPES = Map.of(
            "../outside/secret.txt", "it leads outside the workspace",
            "/etc/passwd", "it is absolute; give a path relative to the workspace",
            "etc/passwd", "it leads outside the workspace",
            "etc", "it leads outside the workspace",
            "outside-file", "it leads outside the workspace",
            "chain-1", "it leads outside the workspace",
            "outside-dir/secret.txt", "it leads outside the workspace",
            "inner/up/outside/secret.txt", "it leads outside the workspace");

    /** Paths for writing: what exists outside, and what a write would create there. */
    private static final Map<String, String> WRITE_ESCAPES = Map.of(
            "../outside/secret.txt", "it leads outside the workspace",
            "../outside/new.txt", "it leads outside the workspace",
            "outside-file", "it leads outside the workspace",
            "chain-1", "it leads outside the workspace",
            "outside-dir/new.txt", "it leads outside the workspace",
            "outside-dir/deeper/new.txt", "it leads outside the workspace",
            "to-nothing", "it is a symbolic link to nothing, whose target cannot be checked",
            "etc/" + ETC_CANARY, "it leads outside the workspace",
            "inner/up/outside/new.txt", "it leads outside the workspace");

    static Stream<Arguments> escapes() {
        return TOOLS.stream().flatMap(PathConfinementTest::escapes);
    }

    static Stream<Arguments> writeEscapes() {
        return TOOLS.stream().filter(aimed -> aimed.tool().mutating()).flatMap(PathConfinementTest::escapes);
    }

    private static Stream<Arguments> escapes(Aimed aimed) {
        Map<String, String> escapes = aimed.tool().mutating() ? WRITE_ESCAPES : READ_ESCAPES;
        return escapes.entrySet().stream().map(escape -> Arguments.of(aimed, escape.getKey(), escape.getValue()));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("escapes")
    void refusesAPathThatLeadsOutside_changingNothingThere(Aimed aimed, String path, String why) throws Exception {
        Map<Path, String> outsideBefore = snapshot(outside);

        ToolException refused = bed.failure(aimed.tool(), aimed.at().apply(path));

        assertThat(refused.kind()).isEqualTo(ToolException.Kind.REFUSED);
        assertThat(refused).hasMessage("argument path: path \"" + path + "\" is refused: " + why);
        assertThat(refused.getMessage()).doesNotContain(outside.toString(), "outside content");
        assertThat(snapshot(outside)).isEqualTo(outsideBefore);
        assertThat(Path.of("/etc", ETC_CANARY)).doesNotExist();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("writeEscapes")
    void refusesTheSamePaths_forIntentAndShown(Aimed aimed, String path, String why) throws Exception {
        Map<Path, String> outsideBefore = snapshot(outside);

        Throwable intent = catchThrowable(() -> aimed.tool().intent(bed.context(), aimed.at().apply(path)));
        Throwable shown = catchThrowable(() -> aimed.tool().shown(bed.workspace, aimed.at().apply(path)));

        for (Throwable refused : List.of(intent, shown)) {
            assertThat(refused).isInstanceOf(ToolException.class)
                    .hasMessage("argument path: path \"" + path + "\" is refused: " + why);
        }
        assertThat(snapshot(outside)).isEqualTo(outsideBefore);
    }

    /** Every file below {@code directory} with its content. */
    private static Map<Path, String> snapshot(Path directory) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(Files::isRegularFile)
                    .collect(Collectors.toMap(directory::relativize, PathConfinementTest::content));
        }
    }

    private static String content(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
