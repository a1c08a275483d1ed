package dev.tether.tools;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.tether.tools.sandbox.Workspace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;

/**
 * A file tool's change to one file, worked out in full before it is made: so its hashes can go into the ledger first,
 * the diff an approver is shown beforehand is the diff the call then reports, and both show exactly what is written.
 * Immutable.
 */
final class FileChange {

    /** The largest file a file tool reads to change it (64 MiB). */
    static final long MAX_FILE_BYTES = 64L * 1024 * 1024;


    private final String path;
    private final Path file;
    private final byte[] before;
    private final byte[] after;

    /**
     * @param path   the file relative to the workspace, as tools show it
     * @param file   the resolved file
     * @param before its content now, or null if it does not exist
     * @param after  its content after the change
     */
    FileChange(String path, Path file, byte[] before, byte[] after) {
        this.path = path;
        this.file = file;
        this.before = before;
        this.after = after;
    }

    /**
     * The content of a regular file now, or empty if it does not exist. Anything else is refused before it is opened:
     * opening a FIFO for reading would wait for a writer, forever.
     *
     * @param path {@code file} as tools show it, for errors
     * @throws ToolException naming argument {@code path} if {@code file} is a directory, not a regular file, or larger than
     *                       {@link #MAX_FILE_BYTES}
     */
    static Optional<byte[]> read(String path, Path file) throws ToolException {
        try {
            BasicFileAttributes attributes =
                    Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (attributes.isDirectory()) {
                throw ToolException.invalidArgument("path", path + " is a directory");
            }
            if (!attributes.isRegularFile()) {
                throw ToolException.invalidArgument("path", path + " is not a regular file");
            }
            if (attributes.size() > MAX_FILE_BYTES) {
                // read whole to change it: one of gigabytes (a sparse one takes a command an instant) would exhaust the heap
                throw ToolException.invalidArgument("path", path + " is " + attributes.size() + " bytes; the file tools change files of"
                        + " at most " + MAX_FILE_BYTES + " bytes");
            }
            return Optional.of(Files.readAllBytes(file));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw ToolException.io("read", path, e);
        }
    }

    Intent intent() {
        return new Intent(beforeHash(), afterHash());
    }

    String beforeHash() {
        return before == null ? FileHash.ABSENT : FileHash.of(before);
    }

    String afterHash() {
        return FileHash.of(after);
    }

    /**
     * Makes the change, atomically, unless the call was cancelled first.
     *
     * @return the diff, or a line saying the file had this content already; redacted
     */
    ToolOutput apply(ToolContext context, String tool) throws ToolException {
        if (context.cancellation().isCancelled()) {
            return context.output(ToolOutput.Status.CANCELLED, tool + ": cancelled before " + path + " was written\n",
                    beforeHash(), beforeHash());
        }
        try {
            context.workspace().write(file, after);
        } catch (IOException e) {
            throw ToolException.io("write", path, e);
        }
        String diff = diff();
        String content = diff.isEmpty() ? tool + ": " + path + " already had this content; nothing changed\n" : diff;
        return context.output(ToolOutput.Status.OK, content, beforeHash(), afterHash());
    }

    /** What an approver is shown: the diff {@link #apply} will report, or a line saying nothing will change. */
    String shown(String tool) {
        String diff = diff();
        return diff.isEmpty() ? tool + ": " + path + " already has this content; nothing will change\n" : diff;
    }

    /** The unified diff of the change; a line naming the hashes when either side is not text. */
    String diff() {
        Optional<String> oldText = before == null ? Optional.of("") : Utf8Text.decode(before);
        Optional<String> newText = Utf8Text.decode(after);
        if (oldText.isEmpty() || newText.isEmpty()) {
            return "Binary content of " + path + " changed: sha256 " + describe(beforeHash()) + " -> " + afterHash()
                    + " (" + after.length + " bytes)\n";
        }
        return UnifiedDiff.of(before == null ? "/dev/null" : "a/" + path, "b/" + path, oldText.get(), newText.get());
    }

    /** A hash as messages show it: {@code absent} for a file that does not exist. */
    static String describe(String hash) {
        return hash.equals(FileHash.ABSENT) ? "(absent)" : hash;
    }

    /** The change of a file to {@code after}, from its content now; see {@link #read} for what is refused. */
    static FileChange to(Workspace workspace, Path file, byte[] after) throws ToolException {
        String path = workspace.shown(file);
        return new FileChange(path, file, read(path, file).orElse(null), after);
    }

    static byte[] utf8(String text) {
        return text.getBytes(UTF_8);
    }
}
