package dev.tether.reliability;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The results of one part of the reliability suite, as {@code reliability/target/results/<part>.json}:
 * {@code {"part": ..., "command": ..., "figures": {name: number or text, ...}, "failures": [text, ...]}}. The chaos
 * run, the fuzzing and the tenant matrix each write one; {@link ReliabilityDoc} renders them all.
 */
final class Results {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Results() {}

    /** Where a run writes its parts. */
    static Path dir(Path root) {
        return root.resolve("reliability/target/results");
    }

    /**
     * Where the published parts are kept, in the repository: {@code reliability/run} copies the parts it ran there,
     * and {@link ReliabilityDoc} renders {@code docs/RELIABILITY.md} from them, so re-running one part never drops the
     * published figures of the others.
     */
    static Path publishedDir(Path root) {
        return root.resolve("reliability/results");
    }

    static Path write(Path root, String part, String command, Map<String, Object> figures, List<String> failures) throws IOException {
        var doc = new LinkedHashMap<String, Object>();
        doc.put("part", part);
        doc.put("command", command);
        doc.put("figures", figures);
        doc.put("failures", failures);
        Path file = Files.createDirectories(dir(root)).resolve(part + ".json");
        JSON.writeValue(file.toFile(), doc);
        return file;
    }
}
