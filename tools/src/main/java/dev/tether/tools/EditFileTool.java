package dev.tether.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.tools.sandbox.Workspace;
import java.nio.file.Path;
import java.util.Set;

/**
 * {@code edit_file {path, old, new, all?}}: replaces the text {@code old} by {@code new} in an existing UTF-8 text
 * file, atomically. {@code old} must occur exactly once, unless {@code all} is true, which replaces every occurrence
 * (left to right, not overlapping); the error otherwise names the count. The output is the unified diff; the hashes
 * are as for {@link WriteFileTool}. An approver is {@linkplain #shown shown} that same diff, against the file as it is
 * when asked.
 *
 * <p>Not idempotent: run again, the replacement could apply twice. Reconciled by the file's hash. Stateless.
 */
public final class EditFileTool implements Tool {

    public static final String NAME = "edit_file";

    private static final Set<String> ARGUMENTS = Set.of("path", "old", "new", "all");

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean mutating() {
        return true;
    }

    @Override
    public boolean idempotent() {
        return false;
    }

    @Override
    public Intent intent(ToolContext context, JsonNode arguments) throws ToolException {
        return change(context.workspace(), arguments).intent();
    }

    /** The unified diff the call would make now. */
    @Override
    public String shown(Workspace workspace, JsonNode arguments) throws ToolException {
        return change(workspace, arguments).shown(NAME);
    }

    @Override
    public ToolOutput execute(ToolContext context, JsonNode arguments) throws ToolException {
        return change(context.workspace(), arguments).apply(context, NAME);
    }

    @Override
    public Reconciliation reconcile(ToolContext context, JsonNode arguments, LedgerEntry started) {
        try {
            Path file = ToolArguments.of(arguments, ARGUMENTS).path("path", context.workspace(), null);
            return FileReconciler.reconcile(NAME, context, file, started);
        } catch (ToolException e) {
            return new Reconciliation.Unknown(NAME + ": cannot check the file: " + e.getMessage());
        }
    }

    private static FileChange change(Workspace workspace, JsonNode arguments) throws ToolException {
        ToolArguments args = ToolArguments.of(arguments, ARGUMENTS);
        Path file = args.path("path", workspace, null);
        String old = args.nonEmptyString("old");
        String replacement = args.string("new");
        boolean all = args.optionalBoolean("all", false);
        String path = workspace.relativize(file);
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
