package dev.tether.tools;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Set;

/**
 * {@code read_file {path, maxBytes?}}: a UTF-8 text file's content, its first {@code maxBytes} bytes (default
 * {@value #DEFAULT_MAX_BYTES}, at most {@value #MAX_MAX_BYTES}) followed by a line saying how much was left out.
 * Binary files (not valid UTF-8, or holding a NUL) are an error rather than base64: a model reads text, and a base64
 * blob would only fill its context. Content too large for an event is offloaded to the blob store. Like all output it is
 * redacted; a secret's beginning that {@code maxBytes} leaves at the end of the cut is redacted too.
 *
 * <p>Reads only, so idempotent; reconciled by running it again. Stateless.
 */
public final class ReadFileTool implements Tool {

    public static final String NAME = "read_file";
    public static final int DEFAULT_MAX_BYTES = 1024 * 1024;
    public static final int MAX_MAX_BYTES = 16 * 1024 * 1024;

    private static final Set<String> ARGUMENTS = Set.of("path", "maxBytes");

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean mutating() {
        return false;
    }

    @Override
    public boolean idempotent() {
        return true;
    }

    @Override
    public ToolOutput execute(ToolContext context, JsonNode arguments) throws ToolException {
        ToolArguments args = ToolArguments.of(arguments, ARGUMENTS);
        Path file = args.path("path", context.workspace(), null);
        int maxBytes = args.optionalInt("maxBytes", DEFAULT_MAX_BYTES, 1, MAX_MAX_BYTES);
        String path = context.workspace().shown(file);
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            throw ToolException.invalidArgument("path", "no such file: " + path);
        }
        if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
            throw ToolException.invalidArgument("path", path + " is a directory; list it with list_dir");
        }
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) { // a FIFO would block the read until a writer came
            throw ToolException.invalidArgument("path", path + " is not a regular file");
        }
        try (InputStream in = Files.newInputStream(file)) {
            byte[] bytes = in.readNBytes(maxBytes);
            long size = Files.size(file);
            boolean cut = size > bytes.length;
            String text = (cut ? Utf8Text.decodePrefix(bytes) : Utf8Text.decode(bytes)).orElseThrow(
                    () -> ToolException.invalidArgument("path", path + " is binary (" + size + " bytes), not UTF-8 text"));
            // cut, the text may end in the beginning of a secret, which redacting the whole would not recognize
            String content = cut
                    ? context.redactor().redactCut(text).text() + "\n[read_file: showed the first " + bytes.length
                            + " of " + size + " bytes; pass a larger maxBytes to read more]\n"
                    : text;
            return context.output(ToolOutput.Status.OK, content);
        } catch (IOException e) {
            throw ToolException.io("read", path, e);
        }
    }

    @Override
    public Reconciliation reconcile(ToolContext context, JsonNode arguments, LedgerEntry started) {
        return new Reconciliation.NotApplied();
    }
}
