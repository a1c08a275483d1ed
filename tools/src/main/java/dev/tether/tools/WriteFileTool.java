package dev.tether.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.tools.sandbox.Workspace;
import java.nio.file.Path;
import java.util.Set;

/**
 * {@code write_file {path, content}}: writes a UTF-8 text file, replacing it atomically, creating it and its parent
 * directories if missing. The output is the unified diff of the old content (empty for a new file) against the new;
 * the output's hashes are the file's SHA-256 before ({@code ""} if it was absent) and after. An approver is
 * {@linkplain #shown shown} that same diff, against the file as it is when asked.
 *
 * <p>Not idempotent: run again, it would overwrite whatever changed the file since. Reconciled by the file's hash.
 * Stateless.
 */
public final class WriteFileTool implements Tool {

    public static final String NAME = "write_file";

    private static final Set<String> ARGUMENTS = Set.of("path", "content");

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

    /** The unified diff the call would make now, or a line saying the file already has the content. */
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
        String content = args.string("content");
        return FileChange.to(workspace, file, FileChange.utf8(content));
    }
}
