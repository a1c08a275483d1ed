package dev.tether.tools;

import dev.tether.tools.sandbox.Workspace;
import java.nio.file.Path;
import java.util.Set;

/**
 * {@code edit_file {path, old, new, all?}}: replaces the text {@code old} by {@code new} in an existing UTF-8 text
 * file, atomically. {@code old} must occur exactly once, unless {@code all} is true, which replaces every occurrence
 * (left to right, not overlapping); the error otherwise names the count. An edit that would make the file larger
 * than the file tools change ({@link FileChange#MAX_FILE_BYTES}) is refused naming {@code new}. The output is the
 * unified diff; the hashes are as for {@link WriteFileTool}. An approver is {@linkplain #shown shown} that same diff,
 * against the file as it is when asked.
 *
 * <p>Not idempotent: run again, the replacement could apply twice. Reconciled by the file's hash. Stateless.
 */
public final class EditFileTool extends FileChangeTool {

    public static final String NAME = "edit_file";

    private static final Set<String> ARGUMENTS = Set.of("path", "old", "new", "all");

    public EditFileTool() {
        super(NAME, ARGUMENTS);
    }

    @Override
    FileChange change(Workspace workspace, ToolArguments args, Path file) throws ToolException {
        String old = args.nonEmptyString("old");
        String replacement = args.string("new");
        boolean all = args.optionalBoolean("all", false);
        String path = workspace.shown(file);
        byte[] before = FileChange.read(path, file)
                .orElseThrow(() -> ToolException.invalidArgument("path", "no such file: " + path));
        String text = Utf8Text.decode(before)
                .orElseThrow(() -> ToolException.invalidArgument("path", path + " is not UTF-8 text"));
        int count = occurrences(text, old);
        if (count == 0) {
            throw ToolException.invalidArgument("old", "occurs 0 times in " + path);
        }
        if (count > 1 && !all) {
            throw ToolException.invalidArgument("old", "occurs " + count + " times in " + path
                    + "; make it unique with more context, or set all to true to replace every occurrence");
        }
        // every occurrence is utf8(old) in the file: the size after is known before the text is built, which for a
        // short old text in a large file, replaced all, could be gigabytes, or past a String's length (an Error)
        long afterBytes = before.length
                + count * (long) (FileChange.utf8(replacement).length - FileChange.utf8(old).length);
        if (afterBytes > FileChange.MAX_FILE_BYTES) {
            throw ToolException.invalidArgument("new", "replacing " + count + " occurrences would make " + path + " "
                    + afterBytes + " bytes; the file tools change files of at most " + FileChange.MAX_FILE_BYTES
                    + " bytes");
        }
        int at = text.indexOf(old);
        String edited = all ? text.replace(old, replacement)
                : text.substring(0, at) + replacement + text.substring(at + old.length());
        return new FileChange(path, file, before, FileChange.utf8(edited));
    }

    private static int occurrences(String text, String old) {
        int count = 0;
        for (int at = text.indexOf(old); at >= 0; at = text.indexOf(old, at + old.length())) {
            count++;
        }
        return count;
    }
}
