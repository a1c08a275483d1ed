package dev.tether.schema;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.avro.Schema;

/** Reads schema files kept under src/test/resources. */
final class SchemaResources {

    private SchemaResources() {}

    static Path dir(String name) {
        try {
            return Path.of(SchemaResources.class.getResource("/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static Schema parse(Path file) {
        try {
            return new Schema.Parser().parse(file.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Schema parse(String resource) {
        return parse(dir(resource));
    }

    /** The released versions (v1, v2, ...), oldest first. */
    static List<Path> releasedVersions() {
        try (Stream<Path> dirs = Files.list(dir("released"))) {
            return dirs.filter(Files::isDirectory)
                    .sorted((a, b) -> Integer.compare(version(a), version(b)))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int version(Path dir) {
        return Integer.parseInt(dir.getFileName().toString().substring(1));
    }
}
