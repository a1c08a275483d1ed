package dev.tether.tools;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Path;

/**
 * Reconciles a file tool's STARTED call by the file's hash now: the hash the call writes proves it completed, the
 * hash from before proves it did not happen, and any other proves nothing.
 */
final class FileReconciler {

    private FileReconciler() {}

    static Reconciliation reconcile(String tool, ToolContext context, Path file, LedgerEntry started) {
        String before = started.beforeHash();
        String after = started.expectedAfterHash();
        if (before == null || after == null) {
            return new Reconciliation.Unknown(tool + ": the STARTED entry has no file hashes to compare");
        }
        String path = context.workspace().shown(file);
        String now;
        try {
            now = FileHash.ofFile(file);
        } catch (IOException e) {
            String reason = e instanceof FileSystemException fileSystem && fileSystem.getReason() != null
                    ? fileSystem.getReason() // never its message, which holds the workspace's location
                    : e.getClass().getSimpleName();
            return new Reconciliation.Unknown(tool + ": cannot hash " + path + ": " + reason);
        }
        if (now.equals(after)) {
            return new Reconciliation.Completed(context.output(ToolOutput.Status.OK,
                    tool + ": " + path + " has the content the interrupted call writes (sha256 " + now
                            + "): the call completed\n",
                    before, after));
        }
        if (now.equals(before)) {
            return new Reconciliation.NotApplied();
        }
        return new Reconciliation.Unknown(tool + ": " + path + " has sha256 " + FileChange.describe(now)
                + ", neither the " + FileChange.describe(before) + " it had before the call nor the " + after
                + " the call writes: something else changed it");
    }
}
