package dev.tether.schema;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the current schemas as a released version's snapshot, fully resolved (one
 * self-contained {@code .avsc} per top-level record), under
 * {@code schemas/src/test/resources/released/<version>/}. Run it when a version is released:
 *
 * <pre>bin/mvn -q -pl schemas compile exec:java -Dexec.mainClass=dev.tether.schema.ReleaseSnapshot -Dexec.args=v2</pre>
 *
 * From then on the build fails when a schema change is not FULL compatible with that snapshot. The directory is found
 * from this class's location ({@code schemas/target/classes}), not from the working directory: {@code exec:java} runs
 * in the directory Maven was started from, which with {@code -pl schemas} is the repository root.
 */
public final class ReleaseSnapshot {

    private ReleaseSnapshot() {}

    public static void main(String[] args) throws IOException, URISyntaxException {
        if (args.length != 1 || !args[0].matches("v[0-9]+")) {
            System.err.println("usage: ReleaseSnapshot v<N>");
            System.exit(2);
        }
        Path classes = Path.of(ReleaseSnapshot.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path dir = classes.resolve("../../src/test/resources/released").normalize().resolve(args[0]);
        if (Files.exists(dir)) {
            System.err.println(dir + " exists: a released snapshot is never rewritten");
            System.exit(1);
        }
        Files.createDirectories(dir);
        for (var e : TetherSchemas.current().entrySet()) {
            Files.writeString(dir.resolve(e.getKey() + ".avsc"), e.getValue().toString(true) + "\n", StandardCharsets.UTF_8);
        }
        System.out.println("wrote " + TetherSchemas.current().size() + " schemas to " + dir);
    }
}
