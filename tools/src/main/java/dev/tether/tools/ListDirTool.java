package dev.tether.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.tools.sandbox.Workspace;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * {@code list_dir {path?, recursive?}}: the entries of a directory (default the workspace), one per line, sorted, as
 * paths relative to the workspace (so they can be passed to other tools as they are), directories with a trailing
 * {@code /}. Recursive listings include everything below. Symbolic links are listed, not followed. At most
 * {@value #MAX_ENTRIES} entries are shown, and at most {@value #MAX_VISITED} are looked at.
 *
 * <p>Reads only, so idempotent; reconciled by running it again. Stateless.
 */
public final class ListDirTool implements Tool {

    public static final String NAME = "list_dir";
    public static final int MAX_ENTRIES = 2000;
    public static final int MAX_VISITED = 100_000;

    private static final Set<String> ARGUMENTS = Set.of("path", "recursive");

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
        Workspace workspace = context.workspace();
        Path directory = args.path("path", workspace, ".");
        boolean recursive = args.optionalBoolean("recursive", false);
        String path = workspace.shown(directory);
        if (!Files.exists(directory, LinkOption.NOFOLLOW_LINKS)) {
            throw ToolException.invalidArgument("path", "no such directory: " + path);
        }
        if (!Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS)) {
            throw ToolException.invalidArgument("path", path + " is not a directory");
        }
        var listing = new Listing(workspace, directory);
        try {
            Files.walkFileTree(directory, Set.of(), recursive ? Integer.MAX_VALUE : 1, listing);
        } catch (IOException e) {
            throw ToolException.io("list", path, e);
        }
        List<String> entries = listing.entries;
        entries.sort(null);
        var content = new StringBuilder();
        entries.stream().limit(MAX_ENTRIES).forEach(entry -> content.append(entry).append('\n'));
        if (entries.isEmpty()) {
            content.append("(").append(path).append(" is empty)\n");
        }
        if (entries.size() > MAX_ENTRIES) {
            content.append("[list_dir: ").append(entries.size() - MAX_ENTRIES).append(" more entries not shown]\n");
        }
        if (!listing.complete) {
            content.append("[list_dir: stopped after ").append(MAX_VISITED).append(" entries; list a subdirectory]\n");
        }
        return context.output(ToolOutput.Status.OK, content.toString());
    }

    /** Collects the entries below one directory, as the workspace-relative paths shown. */
    private static final class Listing extends SimpleFileVisitor<Path> {

        private final Workspace workspace;
        private final Path directory;
        private final List<String> entries = new ArrayList<>();
        private boolean complete = true;

        Listing(Workspace workspace, Path directory) {
            this.workspace = workspace;
            this.directory = directory;
        }

        @Override
        public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
            return dir.equals(directory) ? FileVisitResult.CONTINUE : add(dir, true);
        }

        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
            return add(file, attributes.isDirectory()); // at the depth limit, directories come here
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) {
            return add(file, false); // unreadable: listed all the same
        }

        private FileVisitResult add(Path entry, boolean isDirectory) {
            if (entries.size() >= MAX_VISITED) {
                complete = false;
                return FileVisitResult.TERMINATE;
            }
            entries.add(workspace.shown(entry) + (isDirectory ? "/" : ""));
            return FileVisitResult.CONTINUE;
        }
    }

    @Override
    public Reconciliation reconcile(ToolContext context, JsonNode arguments, LedgerEntry started) {
        return new Reconciliation.NotApplied();
    }
}
