package dev.tether.tools.sandbox;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
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
 * <p>A session id is a name, one tenant's at a time, and free again once its session is erased; a workspace is its
 * session's, not its name's. The executor opens a session's workspace for its tenant ({@link #open(String, String)}),
 * which records the tenant beside it ({@code <root>/.<sessionId>.tenant}; a hidden name no session id can have) and
 * clears a workspace another tenant's erased session left under the id; and it {@link #erase}s a workspace when its
 * session is erased. A workspace made before tenants were recorded is taken over by the first tenant that opens it.
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
     * The workspace of {@code tenantId}'s session {@code sessionId}, created if absent; one another tenant's session left
     * under the id (erased since: an id is one tenant's at a time) is cleared first, so nothing of it is seen.
     *
     * @throws IllegalArgumentException if the session id does not match {@value #SESSION_ID_REGEX}
     * @throws IllegalStateException    if {@code <root>/<sessionId>} exists but is not a directory (or is a link)
     * @throws UncheckedIOException     if the directory or its tenant record cannot be read, cleared or written
     */
    public Workspace open(String tenantId, String sessionId) {
        Objects.requireNonNull(tenantId, "tenantId");
        Workspace workspace;
        synchronized (this) {
            Optional<String> recorded = tenantOf(root, sessionId);
            if (recorded.isPresent() && !recorded.get().equals(tenantId)) {
                erase(sessionId);
            }
            workspace = open(sessionId);
            if (!recorded.equals(Optional.of(tenantId))) {
                try {
                    Files.writeString(tenantFile(root, sessionId), tenantId, StandardCharsets.UTF_8);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot record the tenant of the workspace of session " + sessionId, e);
                }
            }
        }
        return workspace;
    }

    /**
     * Removes the session's workspace, everything in it, and its tenant record, as its session was erased at
     * {@code erasedAt}; links in it are removed, never followed. Nothing there is nothing to do. A workspace whose
     * tenant record was written after {@code erasedAt} is a later session's, made under the id since, and stays: an
     * erasure read again later (an executor that restarts reads the last minutes of the log again; every executor reads
     * every erasure, each at its own pace) never removes it. A workspace without a record (made before records existed)
     * is removed.
     *
     * @throws UncheckedIOException if something there cannot be read or removed
     */
    public void erase(String sessionId, Instant erasedAt) {
        Objects.requireNonNull(erasedAt, "erasedAt");
        if (!namesAWorkspace(Objects.requireNonNull(sessionId, "sessionId"))) {
            return;
        }
        synchronized (this) {
            Path record = tenantFile(root, sessionId);
            try {
                if (Files.isRegularFile(record, LinkOption.NOFOLLOW_LINKS)
                        && Files.getLastModifiedTime(record, LinkOption.NOFOLLOW_LINKS).toInstant().isAfter(erasedAt)) {
                    return;
                }
            } catch (NoSuchFileException e) {
                // removed meanwhile (another instance's erasure): what is left, if anything, goes
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the tenant record of the workspace of session " + sessionId, e);
            }
            erase(sessionId);
        }
    }

    /** Removes the session's workspace and its tenant record, whoever's session made it. */
    private void erase(String sessionId) {
        if (!namesAWorkspace(Objects.requireNonNull(sessionId, "sessionId"))) {
            return;
        }
        try {
            deleteTree(locate(root, sessionId));
            Files.deleteIfExists(tenantFile(root, sessionId));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove the workspace of session " + sessionId, e);
        }
    }

    /**
     * The workspace of {@code tenantId}'s session under {@code directory} as it is, for a service that only reads
     * workspaces (the approval-service previews calls against them, and mounts them read-only): the layout
     * {@link #open} creates, but nothing is created, not even {@code directory}, and nothing is changed.
     *
     * @param directory where the workspaces are; may not exist; never null
     * @param tenantId  the session's tenant, never null
     * @param sessionId the session, never null
     * @param owner     who owns the workspace's files, never null
     * @return the workspace; empty if {@code sessionId} names none ({@link #open} would refuse it), no directory is
     *     there (nothing, a file, or a link), or another tenant's session left it (its tenant record names another)
     * @throws UncheckedIOException if the workspace's directory exists but cannot be resolved
     */
    public static Optional<Workspace> existing(Path directory, String tenantId, String sessionId, SandboxUser owner) {
        Objects.requireNonNull(tenantId, "tenantId");
        if (!namesAWorkspace(Objects.requireNonNull(sessionId, "sessionId"))
                || tenantOf(directory, sessionId).filter(recorded -> !recorded.equals(tenantId)).isPresent()) {
            return Optional.empty();
        }
        return existing(directory, sessionId, owner);
    }

    /** The session's workspace under {@code directory} as it is, whoever's it is. */
    private static Optional<Workspace> existing(Path directory, String sessionId, SandboxUser owner) {
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

    /** Where the tenant of a session's workspace is recorded: beside it, under a name no session id has. */
    private static Path tenantFile(Path root, String sessionId) {
        return root.resolve("." + sessionId + ".tenant");
    }

    /** The tenant recorded for the session's workspace under {@code root}, if any. */
    private static Optional<String> tenantOf(Path root, String sessionId) {
        Path file = tenantFile(root, sessionId);
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        try {
            return Optional.of(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the tenant of the workspace of session " + sessionId, e);
        }
    }

    /** Deletes {@code top} and all under it, links as links; what is already gone (another instance's) is skipped. */
    private static void deleteTree(Path top) throws IOException {
        if (!Files.exists(top, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        Files.walkFileTree(top, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path directory, IOException e) throws IOException {
                if (e != null && !(e instanceof NoSuchFileException)) {
                    throw e;
                }
                Files.deleteIfExists(directory);
                return FileVisitResult.CONTINUE;
            }
        });
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
