package dev.tether.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.tools.sandbox.Workspace;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;

/**
 * A tool that changes one file, {@code path}, worked out in full as a {@link FileChange} before anything is written:
 * its intent is the file's hashes before and after, an approver is shown its diff, it runs by applying it (under the
 * executor, to the content its intent was worked out from only), and it is reconciled by the file's hash. Subclasses
 * say how the new content follows from the arguments. Not idempotent: run again without its intent, it could apply
 * twice, or overwrite what changed the file since. Stateless.
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

    /**
     * Makes the change only to the content the call's STARTED recorded ({@code started}'s before-hash). A call run a
     * second time (by an instance that resumed after its partition moved on, beside the one that took the call over:
     * docs/ARCHITECTURE.md §6) finds the file as the first run left it, with the hash the call writes, and writes
     * nothing (OK, saying so); found changed by anything else, it fails, nothing written. Two runs at the same instant
     * both find the content from before and write the same bytes. An intent without hashes runs as
     * {@link #execute(ToolContext, JsonNode)}.
     */
    @Override
    public final ToolOutput execute(ToolContext context, JsonNode arguments, Intent started) throws ToolException {
        String before = started.beforeHash();
        String after = started.expectedAfterHash();
        if (before == null || after == null) {
            return execute(context, arguments);
        }
        Workspace workspace = context.workspace();
        ToolArguments args = ToolArguments.of(arguments, this.arguments);
        Path file = args.path("path", workspace, null);
        String path = workspace.shown(file);
        FileChange change = null;
        ToolException unworkable = null;
        try {
            change = change(workspace, args, file); // reads the file once: its hash is the change's before-hash
        } catch (ToolException e) {
            unworkable = e; // not to be worked out on the content now (an edit's old text gone, say)
        }
        String now;
        if (change != null) {
            now = change.beforeHash();
        } else {
            try {
                now = FileHash.ofFile(file);
            } catch (IOException e) {
                throw ToolException.io("read", path, e);
            }
        }
        if (now.equals(before)) {
            if (change == null) {
                throw unworkable;
            }
            return change.apply(context, name);
        }
        if (now.equals(after)) {
            return context.output(ToolOutput.Status.OK, name + ": " + path + " already has the content this call writes"
                    + " (sha256 " + after + "): an earlier run of the call wrote it; nothing changed\n", before, after);
        }
        throw ToolException.failed(name + ": " + path + " changed since the call started: it has sha256 "
                + FileChange.describe(now) + ", not the " + FileChange.describe(before)
                + " the change was worked out from; nothing written", null);
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
