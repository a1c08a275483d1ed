package dev.tether.tools.sandbox;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import java.util.Optional;

/**
 * A session's directory, which every path argument of a tool must stay inside. Made by {@link WorkspaceRoot#open}.
 *
 * <p>{@link #resolve} resolves a path the way the kernel would, through {@code ..} and symbolic links, and refuses
 * it with a {@link SandboxViolation} unless the result is inside the workspace's real path. Absolute paths are
 * refused outright, even one naming a file inside the workspace: the workspace's location is the executor's business,
 * and a model that learns it would write it into later arguments and commands. Symbolic links that stay inside are
 * fine.
 *
 * <p>A path is checked when it is resolved: a process changing the workspace at the same time could swap a checked
 * directory for a link before it is used. Commands cannot race tools this way, because a command and all its
 * processes are dead when {@code run_command} returns (see {@link CommandRunner}), and a session runs one tool at a
 * time.
 *
 * <p>Immutable, so thread-safe.
 */
public final class Workspace {

    /**
     * The longest path argument, in UTF-8 bytes: Linux's {@code PATH_MAX}, so no longer path names a file. A longer one
     * is refused before it is looked at, since resolving it walks up one name at a time.
     */
    public static final int MAX_PATH_BYTES = 4096;

    private final Path root;
    private final SandboxUser owner;
    private final AtomicFileWriter writer;

    /** @param root the workspace's real path, an existing directory */
    Workspace(Path root, SandboxUser owner) {
        this.root = Objects.requireNonNull(root, "root");
        this.owner = Objects.requireNonNull(owner, "owner");
        this.writer = new AtomicFileWriter(owner);
    }

    /** The workspace's directory, a real path: absolute, without links, {@code .} or {@code ..}. */
    public Path root() {
        return root;
    }

    /** Who owns the files the tools create here, and whom commands run as. */
    public SandboxUser owner() {
        return owner;
    }

    /**
     * Resolves a path argument inside the workspace. An existing path is resolved to its real path; for a path yet to
     * be created, its deepest existing ancestor is, and the missing names are appended to it.
     *
     * @param userPath a path relative to the workspace, never null; {@code "."} is the workspace itself
     * @return an absolute path inside {@link #root()}, through no symbolic link, that may not exist yet
     * @throws SandboxViolation if the path is empty, longer than {@value #MAX_PATH_BYTES} bytes, holds a NUL, is
     *     absolute, leads outside the workspace (through {@code ..}, a link, a chain of links or a linked directory), is
     *     a link to nothing, or cannot be resolved
     */
    public Path resolve(String userPath) {
        Objects.requireNonNull(userPath, "userPath");
        if (userPath.isEmpty()) {
            throw new SandboxViolation(userPath, SandboxViolation.Reason.EMPTY);
        }
        if (userPath.length() > MAX_PATH_BYTES || userPath.getBytes(StandardCharsets.UTF_8).length > MAX_PATH_BYTES) {
            throw new SandboxViolation(userPath, SandboxViolation.Reason.TOO_LONG);
        }
        if (userPath.indexOf('\0') >= 0) {
            throw new SandboxViolation(userPath, SandboxViolation.Reason.NUL_BYTE);
        }
        Path relative;
        try {
            relative = root.getFileSystem().getPath(userPath);
        } catch (InvalidPathException e) {
            throw new SandboxViolation(userPath, SandboxViolation.Reason.UNRESOLVABLE);
        }
        if (relative.isAbsolute()) {
            throw new SandboxViolation(userPath, SandboxViolation.Reason.ABSOLUTE);
        }
        Path existing = root.resolve(relative);
        Deque<String> missing = new ArrayDeque<>();
        while (!Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
            missing.push(existing.getFileName().toString());
            existing = existing.getParent();
        }
        Path resolved = realPath(userPath, existing);
        for (String name : missing) {
            if (name.equals("..")) { // the kernel could not climb out of a directory that does not exist
                throw new SandboxViolation(userPath, SandboxViolation.Reason.UNRESOLVABLE);
            }
            if (!name.equals(".")) {
                resolved = resolved.resolve(name);
            }
        }
        return resolved;
    }

    /**
     * Where {@code userPath} leads in the workspace now, through symbolic links, relative to it ({@link #relativize} of
     * {@link #resolve}): what a session grant's path glob must cover besides the path as written. Empty if it leads
     * nowhere inside the workspace or cannot be resolved.
     */
    public Optional<String> leadsTo(String userPath) {
        try {
            return Optional.of(relativize(resolve(userPath)));
        } catch (SandboxViolation | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /**
     * {@code path} relative to the workspace, as tools show it: {@code a/b.txt}, or {@code .} for the workspace itself.
     *
     * @param path a path inside the workspace, as {@link #resolve} returns
     */
    public String relativize(Path path) {
        if (!contains(path)) {
            throw new IllegalArgumentException(path + " is not inside the workspace");
        }
        String relative = root.relativize(path).toString();
        return relative.isEmpty() ? "." : relative;
    }

    /**
     * {@code path} as tools show it in their output: {@link #relativize}'s, as it is unless it holds a character that
     * could pass for the output's own layout (a control character such as a line break, a line or paragraph separator,
     * a bidirectional override) or begins with {@code "}; then as a JSON string, quoted and escaped
     * ({@code "notes\n[list_dir: 3 more entries]"}), which is how a model passes the same path back in its next call's
     * arguments. A file name of the workspace, made by any command, cannot then fake a line of a listing or of grep's
     * matches.
     *
     * @param path a path inside the workspace, as {@link #resolve} returns
     */
    public String shown(Path path) {
        return shownName(relativize(path));
    }

    static String shownName(String name) {
        if (!name.startsWith("\"") && name.codePoints().noneMatch(Workspace::confusing)) {
            return name;
        }
        var quoted = new StringBuilder("\"");
        name.codePoints().forEach(c -> {
            switch (c) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                case '\n' -> quoted.append("\\n");
                case '\r' -> quoted.append("\\r");
                case '\t' -> quoted.append("\\t");
                default -> {
                    if (confusing(c)) {
                        quoted.append(String.format("\\u%04x", c));
                    } else {
                        quoted.appendCodePoint(c);
                    }
                }
            }
        });
        return quoted.append('"').toString();
    }

    /** A control character, a line or paragraph separator, or a bidirectional formatting character. */
    private static boolean confusing(int c) {
        int type = Character.getType(c);
        return type == Character.CONTROL || type == Character.LINE_SEPARATOR || type == Character.PARAGRAPH_SEPARATOR
                || c == 0x061c || c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
    }

    /** Whether an absolute, normalized path is the workspace or inside it; links in it are not followed. */
    public boolean contains(Path path) {
        return path.isAbsolute() && path.normalize().equals(path) && path.startsWith(root);
    }

    /**
     * Writes {@code content} to {@code file} atomically (see {@link AtomicFileWriter}), creating missing parent
     * directories; what it creates belongs to {@link #owner()}.
     *
     * @param file a path returned by {@link #resolve}
     * @throws IOException if {@code file} is a directory, or on any I/O error; the old content is then intact
     */
    public void write(Path file, byte[] content) throws IOException {
        if (!contains(file) || file.equals(root)) {
            throw new IllegalArgumentException(file + " is not a file path inside the workspace");
        }
        writer.write(file, Objects.requireNonNull(content, "content"));
    }

    private Path realPath(String userPath, Path existing) {
        Path real;
        try {
            real = existing.toRealPath();
        } catch (NoSuchFileException e) {
            throw new SandboxViolation(userPath, SandboxViolation.Reason.DANGLING_LINK);
        } catch (IOException e) { // a loop of links, a name too long, no permission

            throw new SandboxViolation(userPath, SandboxViolation.Reason.UNRESOLVABLE);
        }
        if (!real.startsWith(root)) {
            throw new SandboxViolation(userPath, SandboxViolation.Reason.OUTSIDE_WORKSPACE);
        }
        return real;
    }

    @Override
    public String toString() {
        return "Workspace[" + root + ", owner " + owner + "]";
    }
}
