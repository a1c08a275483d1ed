package dev.tether.tools;

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
public final class WriteFileTool extends FileChangeTool {

    public static final String NAME = "write_file";

    private static final Set<String> ARGUMENTS = Set.of("path", "content");

    public WriteFileTool() {
        super(NAME, ARGUMENTS);
    }

    @Override
    FileChange change(Workspace workspace, ToolArguments args, Path file) throws ToolException {
        String content = args.string("content");
        return FileChange.to(workspace, file, FileChange.utf8(content));
    }
}
