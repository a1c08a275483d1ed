package dev.tether.core.blob;

import java.io.InputStream;
import java.time.Instant;
import java.util.Optional;

/**
 * Content-addressed storage of large content, partitioned by tenant: a blob is named by the
 * SHA-256 of its bytes and visible only to the tenant that stored it. To any other tenant it is
 * absent, exactly as if it had never been stored, even when the same bytes are stored under
 * another tenant.
 *
 * <p>Implementations are thread-safe. Arguments are never null ({@link NullPointerException}); a
 * tenant id the store cannot represent is an {@link IllegalArgumentException}; storage failures
 * are {@link java.io.UncheckedIOException}s.
 */
public interface BlobStore {

    /** What {@link #deleteUnlessPutSince} did. */
    enum Removal {
        /** The blob was deleted. */
        DELETED,
        /** There was no such blob (or {@code sha256} was malformed): nothing was touched. */
        ABSENT,
        /** The blob was put at or after the given time, so it was kept. */
        PUT_SINCE
    }

    /**
     * Stores {@code content} for {@code tenantId}, once: putting the same bytes again, even
     * concurrently, stores nothing more and returns an equal ref, but counts as a put for
     * {@link #deleteUnlessPutSince}. When this returns, the blob is durable and complete; a reader
     * never sees part of it.
     *
     * @return the blob's ref, with the canonical uri and an empty preview (the store sees bytes, not text)
     */
    BlobRef put(String tenantId, byte[] content);

    /**
     * Opens the tenant's blob for reading; the caller closes the stream.
     *
     * @return empty when the tenant has no such blob, or {@code sha256} is not 64 lower-case hex digits
     */
    Optional<InputStream> open(String tenantId, String sha256);

    /**
     * Deletes the tenant's blob. A stream already open on it may still read it, where the platform allows.
     *
     * @return whether there was such a blob; false, touching nothing, when {@code sha256} is malformed
     */
    boolean delete(String tenantId, String sha256);

    /**
     * Deletes the tenant's blob unless it was last put at or after {@code since}. A put that returns before this begins
     * is seen, and one that overlaps it either is seen or stores the blob again: a ref {@link #put} returned names a
     * blob that was put at or after the put began, or exists. So whoever deletes blobs nobody refers to keeps one just
     * offloaded again for content whose reference it has not learnt of yet, if {@code since} is far enough back.
     */
    Removal deleteUnlessPutSince(String tenantId, String sha256, Instant since);
}
