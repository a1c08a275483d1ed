package dev.tether.kit.kafka;

import dev.tether.core.blob.BlobRef;
import dev.tether.core.blob.BlobStore;
import java.io.InputStream;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.jboss.logging.Logger;

/**
 * A blob store that nominates every blob it puts for deletion on {@code blob-references} ({@link BlobReferences#nomination}):
 * the projector deletes it once the grace has passed unless a session refers to it by then. So content offloaded for an
 * append, a result or a request for approval that is then refused (a fenced worker's, a session erased meanwhile) does
 * not stay in the store for ever; content whose event is accepted is referred to long before. A nomination is sent
 * without waiting for it: one that is lost leaves the blob as it was before nominations (kept), never deletes one.
 * Owns its producer; thread-safe.
 */
public final class NominatingBlobStore implements BlobStore, AutoCloseable {

    private static final Logger LOG = Logger.getLogger(NominatingBlobStore.class);

    private final BlobStore store;
    private final Producer<String, byte[]> producer;
    private final String topic;
    private volatile int partitions;

    /** @param topic {@code blob-references} under the service's layout */
    public NominatingBlobStore(BlobStore store, Producer<String, byte[]> producer, String topic) {
        this.store = Objects.requireNonNull(store, "store");
        this.producer = Objects.requireNonNull(producer, "producer");
        this.topic = Objects.requireNonNull(topic, "topic");
    }

    @Override
    public BlobRef put(String tenantId, byte[] content) {
        BlobRef ref = store.put(tenantId, content);
        String key = BlobReferences.nomination(tenantId, ref.sha256());
        try {
            producer.send(new ProducerRecord<>(topic, BlobReferences.partition(key, partitions()), key, null), (metadata, e) -> {
                if (e != null) {
                    lost(tenantId, ref, e);
                }
            });
        } catch (RuntimeException e) {
            lost(tenantId, ref, e);
        }
        return ref;
    }

    private static void lost(String tenantId, BlobRef ref, Exception e) {
        LOG.warnf("could not nominate blob %s of tenant %s for deletion (it is kept unless a session refers to it and is erased): %s",
                ref.sha256(), tenantId, e.toString());
    }

    @Override
    public Optional<InputStream> open(String tenantId, String sha256) {
        return store.open(tenantId, sha256);
    }

    @Override
    public boolean delete(String tenantId, String sha256) {
        return store.delete(tenantId, sha256);
    }

    @Override
    public Removal deleteUnlessPutSince(String tenantId, String sha256, Instant since) {
        return store.deleteUnlessPutSince(tenantId, sha256, since);
    }

    /** The topic's partition count, read once: it never changes while sessions exist. */
    private int partitions() {
        int n = partitions;
        if (n == 0) {
            n = producer.partitionsFor(topic).size();
            partitions = n;
        }
        return n;
    }

    @Override
    public void close() {
        producer.close();
    }
}
