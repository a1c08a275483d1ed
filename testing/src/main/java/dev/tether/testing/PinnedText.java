package dev.tether.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Text a test pins in a class-path resource (e.g. a topology's description): {@link #read} it, and when the actual
 * text differs, {@link #writeForDiff} writes it under {@code target/} next to where the resource's name says, to diff
 * against the pinned one. Stateless.
 */
public final class PinnedText {

    private PinnedText() {}

    /** The pinned text of {@code resource} (an absolute class-path name, e.g. {@code /topology/sequencer.txt}), UTF-8. */
    public static String read(String resource) {
        try (InputStream in = PinnedText.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("no resource " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code actual} if it equals the pinned text; else writes it to {@code target/<resource>} first. */
    public static String writeForDiff(String actual, String resource) {
        if (!actual.equals(read(resource))) {
            try {
                Path file = Path.of("target", resource.substring(1));
                Files.createDirectories(file.getParent());
                Files.writeString(file, actual);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return actual;
    }
}
