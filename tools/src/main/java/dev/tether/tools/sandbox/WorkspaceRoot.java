package dev.tether.tools.sandbox;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The directory that holds one {@link Workspace} per session, at {@code <root>/<sessionId>}. Session ids are
 * Tether's ids ({@value #SESSION_ID_REGEX}: what the session API accepts), used as directory names as they are; any
 * other id is refused, so an id can never name {@code ..}, a separator or a hidden file.
 *
 * <p>A workspace directory is created with mode {@code 700} and given to the owner, the user commands run as
 * ({@link Isolation#commandUser()}). That user must be able to reach it: the root and every directory above it must be
 * searchable ({@code x}) by it. A root this creates gets mode {@code 711}; an existing one is left as it is.
 *
 * <p>This class is the layout's one implementation: the executor opens workspaces with {@link #open}, and a service
 * that only reads them finds them with {@link #existing}, which creates nothing.
 *
 * <p>Thread-safe: concurrent opens of one session return equal workspaces.
 */
public final class WorkspaceRoot {

    /** What a session id must match to name a workspace. */
    public static final String SESSION_ID_REGEX = "[A-Za-z0-9][A-Za-z0-9._-]{0,127}";

    private static final Pattern SESSION_ID = Pattern.compile(SESSION_ID_REGEX);
    private static final Set<PosixFilePermission> ROOT_MODE = PosixFilePermissions.fromString("rwx--x--x");
    private static final Set<PosixFilePermission> WORKSPACE_MODE = PosixFilePermissions.fromString("rwx------");

    private final Path root;
    private final SandboxUser owner;

    /**
     * @param directory where the workspaces are, created (mode {@code 711}) if absent; never null
     * @param owner     who owns the workspaces and what tools create in them, never null
     * @throws UncheckedIOException if the directory cannot be created or resolved
     */
    public WorkspaceRoot(Path directory, SandboxUser owner) {
        Objects.requireNonNull(directory, "directory");
        this.owner = Objects.requireNonNull(owner, "owner");
        try {
            if (!Files.exists(directory)) {
                Files.createDirectories(directory);
                Files.setPosixFilePermissions(directory, ROOT_MODE);
            }
            this.root = directory.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot use " + directory + " as the workspace root", e);
        }
    }

    /** The root's real path. */
    public Path directory() {
        return root;
    }

    /**
     * The session's workspace, created if absent.
     *
     * @param sessionId a session id matching {@value #SESSION_ID_REGEX}
     * @throws IllegalArgumentException if the id does not match
     * @throws IllegalStateException    if {@code <root>/<sessionId>} exists but is not a directory (or is a link)
     * @throws UncheckedIOException     if the directory cannot be created
     */
    public Workspace open(String sessionId) {
        Objects.requireNonNull(sessionId, "sessionId");
        if (!namesAWorkspace(sessionId)) {
            throw new IllegalArgumentException("session id must match " + SESSION_ID_REGEX + " to name a workspace");
        }
        Path directory = locate(root, sessionId);
        try {
            createIfAbsent(directory);
            if (!Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS)) {
                throw new IllegalStateException(directory + " exists and is not a directory");
            }
            return new Workspace(directory.toRealPath(), owner);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the workspace of session " + sessionId, e);
        }
    }

    /**
     * The session's workspace under {@code directory} as it is, for a service that only reads workspaces (the
     * approval-service previews calls against them, and mounts them read-only): the layout {@link #open} creates, but
     * nothing is created, not even {@code directory}, and nothing is changed.
     *
     * @param directory where the workspaces are; may not exist; never null
     * @param sessionId the session, never null
     * @param owner     who owns the workspace's files, never null
     * @return the workspace; empty if {@code sessionId} names none ({@link #open} would refuse it) or no directory is
     *     there (nothing, a file, or a link)
     * @throws UncheckedIOException if the workspace's directory exists but cannot be resolved
     */
    public static Optional<Workspace> existing(Path directory, String sessionId, SandboxUser owner) {
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(owner, "owner");
        if (!namesAWorkspace(Objects.requireNonNull(sessionId, "sessionId"))) {
            return Optional.empty();
        }
        Path workspace = locate(directory, sessionId);
        if (!Files.isDirectory(workspace, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Workspace(workspace.toRealPath(), owner));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the workspace of session " + sessionId, e);
        }
    }

    private static boolean namesAWorkspace(String sessionId) {
        return SESSION_ID.matcher(sessionId).matches();
    }

    /** The layout: a session's workspace is the directory named by its id, right under the root. */
    private static Path locate(Path root, String sessionId) {
        return root.resolve(sessionId);
    }

    private void createIfAbsent(Path directory) throws IOException {
        if (Files.exists(directory, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try {
            Files.createDirectory(directory);
        } catch (FileAlreadyExistsException raced) {
            return; // another thread opened it first, and sets it up
        }
        Files.setPosixFilePermissions(directory, WORKSPACE_MODE);
        if (!owner.equals(SandboxUser.current())) {
            Files.setAttribute(directory, "unix:uid", owner.uid(), LinkOption.NOFOLLOW_LINKS);
            Files.setAttribute(directory, "unix:gid", owner.gid(), LinkOption.NOFOLLOW_LINKS);
        }
    }

    @Override
    public String toString() {
        return "WorkspaceRoot[" + root + ", owner " + owner + "]";
    }
}
