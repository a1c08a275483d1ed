package dev.tether.tools.sandbox;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import java.util.Set;

/**
 * Writes a file so that a crash leaves either its old content or its new content, never a mix: the bytes go to a
 * temporary file beside it, which is forced to disk and then renamed over it; the directory is forced after. Missing
 * parent directories are created. What it creates belongs to the workspace's owner; a replaced file keeps its
 * permissions. A crash may leave a temporary file {@code .tether-<random>.tmp} behind.
 *
 * <p>Stateless apart from its owner, so thread-safe; two concurrent writes of one file leave one of the two contents.
 */
final class AtomicFileWriter {

    private static final Set<PosixFilePermission> NEW_FILE = PosixFilePermissions.fromString("rw-r--r--");
    private static final Set<PosixFilePermission> NEW_DIRECTORY = PosixFilePermissions.fromString("rwxr-xr-x");

    private final SandboxUser owner;
    private final boolean changeOwner;

    /** @param owner who is to own what is created; files are given to it only when this JVM runs as someone else */
    AtomicFileWriter(SandboxUser owner) {
        this.owner = Objects.requireNonNull(owner, "owner");
        this.changeOwner = !owner.equals(SandboxUser.current());
    }

    /**
     * Replaces or creates {@code file} with {@code content}.
     *
     * @param file a path already checked to be inside the workspace, whose final name is not a symbolic link
     * @throws IOException if it is a directory, or on any I/O error; the old content is then intact
     */
    void write(Path file, byte[] content) throws IOException {
        if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new FileSystemException(file.toString(), null, "is a directory");
        }
        Path directory = file.getParent();
        createDirectories(directory);
        Set<PosixFilePermission> permissions = Files.exists(file, LinkOption.NOFOLLOW_LINKS)
                ? Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS)
                : NEW_FILE;
        Path temporary = Files.createTempFile(directory, ".tether-", ".tmp");
        try {
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
                ByteBuffer buffer = ByteBuffer.wrap(content);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                channel.force(true);
            }
            Files.setPosixFilePermissions(temporary, permissions);
            giveToOwner(temporary);
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(temporary);
            throw e;
        }
        force(directory);
    }

    /** Creates the missing directories of {@code directory}, outermost first, each given to the owner. */
    private void createDirectories(Path directory) throws IOException {
        Deque<Path> missing = new ArrayDeque<>();
        for (Path d = directory; !Files.exists(d, LinkOption.NOFOLLOW_LINKS); d = d.getParent()) {
            missing.push(d);
        }
        for (Path d : missing) {
            Files.createDirectory(d);
            Files.setPosixFilePermissions(d, NEW_DIRECTORY);
            giveToOwner(d);
        }
    }

    private void giveToOwner(Path path) throws IOException {
        if (changeOwner) {
            Files.setAttribute(path, "unix:uid", owner.uid(), LinkOption.NOFOLLOW_LINKS);
            Files.setAttribute(path, "unix:gid", owner.gid(), LinkOption.NOFOLLOW_LINKS);
        }
    }

    /** Forces a directory's entries to disk, so that a rename in it survives a crash. */
    private static void force(Path directory) throws IOException {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}
