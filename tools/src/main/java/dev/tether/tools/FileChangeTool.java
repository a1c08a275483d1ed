package dev.tether.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.tools.sandbox.Workspace;
import java.nio.file.Path;
import java.util.Set;

/**
 * A tool that changes one file, {@code path}, worked out in full as a {@link FileChange} before anything is written:
 * its intent is the file's hashes before and after, an approver is shown its diff, it runs by applying it, and it is
 * reconciled by the file's hash. Subclasses say how the new content follows from the arguments. Not idempotent: run
 * again, it could apply twice, or overwrite what changed the file since. Stateless.
 */
abstract class FileChangeTool implements Tool {

    private final String name;
    private final Set<String> arguments;

    /**
     * @param name      the tool's name
     * @param arguments the arguments it takes, {@code path} among them
     */
    FileChangeTool(String name, Set<String> arguments) {
        this.name = name;
        this.arguments = Set.copyOf(arguments);
    }

    /** The change the call asks for, against the file as it is now. */
    abstract FileChange change(Workspace workspace, ToolArguments args, Path file) throws ToolException;

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final boolean mutating() {
        return true;
    }

    @Override
    public final boolean idempotent() {
        return false;
    }

    @Override
    public final Intent intent(ToolContext context, JsonNode arguments) throws ToolException {
        return change(context.workspace(), arguments).intent();
    }

    @Override
    public final String shown(Workspace workspace, JsonNode arguments) throws ToolException {
        return change(workspace, arguments).shown(name);
    }

    @Override
    public final ToolOutput execute(ToolContext context, JsonNode arguments) throws ToolException {
        return change(context.workspace(), arguments).apply(context, name);
    }

    @Override
    public final Reconciliation reconcile(ToolContext context, JsonNode arguments, LedgerEntry started) {
        try {
            Path file = ToolArguments.of(arguments, this.arguments).path("path", context.workspace(), null);
            return FileReconciler.reconcile(name, context, file, started);
        } catch (ToolException e) {
            return new Reconciliation.Unknown(name + ": cannot check the file: " + e.getMessage());
        }
    }

    private FileChange change(Workspace workspace, JsonNode arguments) throws ToolException {
        ToolArguments args = ToolArguments.of(arguments, this.arguments);
        return change(workspace, args, args.path("path", workspace, null));
    }
}
