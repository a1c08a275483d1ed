package dev.tether.reliability.fuzz;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The figures of a run, in the file {@code docs/RELIABILITY.md} is rendered from:
 * {@code reliability/target/results/<part>.json} = {@code {"part", "command", "figures": {...}, "failures": [...]}}.
 */
final class Results {

    static final String COMMAND = "bin/mvn verify -pl reliability -am -Dit.test='EndpointFuzzIT,TenantMatrixIT' -Dtest=None "
            + "-Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false";

    private Results() {}

    /** Writes the part's file; {@code figures} values are numbers or strings, in the order given. */
    static Path write(String part, Map<String, ?> figures, List<String> failures) {
        return write(part, COMMAND, figures, failures);
    }

    /** The same, for a part that {@code command} (rather than {@link #COMMAND}) reproduces. */
    static Path write(String part, String command, Map<String, ?> figures, List<String> failures) {
        ObjectNode out = Http.JSON.createObjectNode();
        out.put("part", part);
        out.put("command", command);
        ObjectNode f = out.putObject("figures");
        figures.forEach((name, value) -> {
            if (value instanceof Double || value instanceof Float) {
                f.put(name, ((Number) value).doubleValue());
            } else if (value instanceof Number n) {
                f.put(name, n.longValue());
            } else {
                f.put(name, String.valueOf(value));
            }
        });
        ArrayNode list = out.putArray("failures");
        failures.forEach(list::add);
        Path file = TetherUnderTest.ROOT.resolve("reliability/target/results/" + part + ".json");
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, Http.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(out) + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }
}
