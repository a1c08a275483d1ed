package dev.tether.schema;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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

    /** A schema of today beside its snapshot in one released version ({@code label}: v1, v2, ...). */
    record Released(String name, Schema current, String label, Schema released) {}

    /** Every schema of today beside each released version's snapshot of it, versions that did not have it yet passed over. */
    static List<Released> releasedPairs() {
        var pairs = new ArrayList<Released>();
        for (Path version : releasedVersions()) {
            String label = version.getFileName().toString();
            for (var current : TetherSchemas.current().entrySet()) {
                Path snapshot = version.resolve(current.getKey() + ".avsc");
                if (Files.exists(snapshot)) { // else the schema did not exist yet in that version
                    pairs.add(new Released(current.getKey(), current.getValue(), label, parse(snapshot)));
                }
            }
        }
        return pairs;
    }

    private static int version(Path dir) {
        return Integer.parseInt(dir.getFileName().toString().substring(1));
    }
}
