package dev.tether.core.blob;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * A {@link BlobStore} in a local directory, laid out as
 * {@code <root>/<tenant-dir>/<sha256[0..2]>/<sha256>}. The tenant directory is the lower-case hex
 * of the tenant id's UTF-8 bytes: hex cannot spell a separator, {@code .} or {@code ..}, and two
 * tenants never share a directory, even on a case-insensitive file system. A file name holds 255
 * bytes, so tenant ids are limited to {@value #MAX_TENANT_ID_BYTES} UTF-8 bytes; the empty id and
 * ids with an unpaired surrogate (which UTF-8 cannot encode) are rejected.
 *
 * <p>A put writes a temporary file beside the blob, forces it to disk, renames it atomically to the
 * blob's name and forces the directory: after a crash a blob is complete or absent, and once
 * {@code put} returns it survives one. A crash may leave a temporary file
 * ({@code <sha256>.<random>.tmp}) behind, which no read returns; such files older than a few
 * minutes can be deleted, as can a {@code <sha256>.<random>.deleting} that a crash during
 * {@link #deleteUnlessPutSince} left. Directories are never removed, since a concurrent put may be about to
 * use one.
 *
 * <p>Thread-safe, also between processes sharing the directory on a local file system.
 */
public final class LocalBlobStore implements BlobStore {

    /** The longest tenant id, in UTF-8 bytes, whose directory name fits in 255 bytes. */
    public static final int MAX_TENANT_ID_BYTES = 127;

    private static final HexFormat HEX = HexFormat.of();

    private final Path root;

    /**
     * @param root the store's directory, never null; created if absent
     * @throws UncheckedIOException if it cannot be created or resolved
     */
    public LocalBlobStore(Path root) {
        Objects.requireNonNull(root, "root");
        try {
            Files.createDirectories(root);
            this.root = root.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot use " + root + " as a blob store", e);
        }
    }

    @Override
    public BlobRef put(String tenantId, byte[] content) {
        Path tenantDir = tenantDirectory(tenantId);
        Objects.requireNonNull(content, "content");
        String sha256 = HEX.formatHex(sha256(content));
        Path blob = blobPath(tenantDir, sha256);
        try {
            if (!markPut(blob)) {
                write(blob, content);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot store blob " + sha256, e);
        }
        return BlobRef.of(sha256, content.length, "");
    }

    @Override
    public Optional<InputStream> open(String tenantId, String sha256) {
        Path tenantDir = tenantDirectory(tenantId);
        Objects.requireNonNull(sha256, "sha256");
        if (!BlobRef.isSha256(sha256)) {
            return Optional.empty();
        }
        Path blob = blobPath(tenantDir, sha256);
        try {
            Path real = blob.toRealPath();
            if (!real.startsWith(root)) {
                throw new IllegalStateException(blob + " leads outside the blob store, to " + real);
            }
            return Optional.of(Files.newInputStream(real));
        } catch (NoSuchFileException absent) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open blob " + sha256, e);
        }
    }

    @Override
    public boolean delete(String tenantId, String sha256) {
        Path tenantDir = tenantDirectory(tenantId);
        Objects.requireNonNull(sha256, "sha256");
        if (!BlobRef.isSha256(sha256)) {
            return false;
        }
        try {
            return Files.deleteIfExists(blobPath(tenantDir, sha256));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete blob " + sha256, e);
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>The time of a put is the blob file's modification time, which a put of bytes stored already sets to now. The
     * blob is first renamed aside ({@code <sha256>.<random>.deleting}), so that a put from then on finds no blob and
     * writes it again; a put that set the time before the rename shows in the renamed file's time, and then the blob is
     * renamed back.
     */
    @Override
    public Removal deleteUnlessPutSince(String tenantId, String sha256, Instant since) {
        Path tenantDir = tenantDirectory(tenantId);
        Objects.requireNonNull(sha256, "sha256");
        Objects.requireNonNull(since, "since");
        if (!BlobRef.isSha256(sha256)) {
            return Removal.ABSENT;
        }
        Path blob = blobPath(tenantDir, sha256);
        try {
            Optional<Instant> putAt = lastPut(blob);
            if (putAt.isEmpty()) {
                return Removal.ABSENT;
            }
            if (!putAt.get().isBefore(since)) {
                return Removal.PUT_SINCE;
            }
            Path aside = blob.resolveSibling(sha256 + "." + UUID.randomUUID() + ".deleting");
            try {
                Files.move(blob, aside, StandardCopyOption.ATOMIC_MOVE);
            } catch (NoSuchFileException deletedMeanwhile) {
                return Removal.ABSENT;
            }
            if (lastPut(aside).map(at -> !at.isBefore(since)).orElse(false)) {
                putBack(aside, blob);
                return Removal.PUT_SINCE;
            }
            Files.delete(aside);
            syncDirectory(blob.getParent());
            return Removal.DELETED;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete blob " + sha256, e);
        }
    }

    /**
     * Sets the blob's time of last put to now; false if there is no such blob. The time is set through a file descriptor,
     * so a deletion may have renamed the file aside (and seen its time before it was set) meanwhile: only a blob still
     * there once its time is set counts.
     */
    private static boolean markPut(Path blob) throws IOException {
        try {
            Files.setLastModifiedTime(blob, FileTime.from(Instant.now()));
        } catch (NoSuchFileException absent) {
            return false;
        }
        return Files.exists(blob);
    }

    private static Optional<Instant> lastPut(Path blob) throws IOException {
        try {
            return Optional.of(Files.getLastModifiedTime(blob).toInstant());
        } catch (NoSuchFileException absent) {
            return Optional.empty();
        }
    }

    /** Renames a blob put while it was being deleted back; where a put has written it again meanwhile, that copy stays. */
    private static void putBack(Path aside, Path blob) throws IOException {
        try {
            Files.move(aside, blob, StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException writtenAgain) {
            Files.delete(aside); // where a rename does not replace: the same bytes are there
        }
    }

    private Path tenantDirectory(String tenantId) {
        Objects.requireNonNull(tenantId, "tenantId");
        if (tenantId.isEmpty()) {
            throw new IllegalArgumentException("tenant id is empty");
        }
        if (tenantId.codePoints().anyMatch(cp -> Character.getType(cp) == Character.SURROGATE)) {
            throw new IllegalArgumentException("tenant id has an unpaired surrogate");
        }
        byte[] utf8 = tenantId.getBytes(UTF_8);
        if (utf8.length > MAX_TENANT_ID_BYTES) {
            throw new IllegalArgumentException(
                    "tenant id is " + utf8.length + " UTF-8 bytes, more than " + MAX_TENANT_ID_BYTES);
        }
        return root.resolve(HEX.formatHex(utf8));
    }

    /** {@code sha256} must be validated: the check below is a last line of defence, not the validation. */
    private Path blobPath(Path tenantDir, String sha256) {
        Path blob = tenantDir.resolve(sha256.substring(0, 2)).resolve(sha256).normalize();
        if (!blob.startsWith(root) || blob.getNameCount() != root.getNameCount() + 3) {
            throw new IllegalStateException(blob + " is not a blob path under " + root);
        }
        return blob;
    }

    private void write(Path blob, byte[] content) throws IOException {
        Path shard = blob.getParent();
        if (Files.notExists(shard)) {
            Files.createDirectories(shard);
            syncDirectory(shard.getParent());
            syncDirectory(root);
        }
        Path temp = Files.createTempFile(shard, blob.getFileName() + ".", ".tmp");
        try {
            try (FileChannel out = FileChannel.open(temp, StandardOpenOption.WRITE)) {
                ByteBuffer bytes = ByteBuffer.wrap(content);
                while (bytes.hasRemaining()) {
                    out.write(bytes);
                }
                out.force(true);
            }
            try {
                Files.move(temp, blob, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                if (!markPut(blob)) {
                    throw e;
                }
                // where a rename does not replace, a concurrent put of the same bytes came first
            }
            syncDirectory(shard);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /** Makes the directory's entries durable; skipped where a directory cannot be opened (Windows). */
    private static void syncDirectory(Path dir) throws IOException {
        FileChannel channel;
        try {
            channel = FileChannel.open(dir, StandardOpenOption.READ);
        } catch (AccessDeniedException cannotOpenDirectories) {
            return;
        }
        try (channel) {
            channel.force(true);
        }
    }

    private static byte[] sha256(byte[] content) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(content);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
