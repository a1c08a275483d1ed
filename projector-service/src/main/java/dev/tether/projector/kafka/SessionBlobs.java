package dev.tether.projector.kafka;

import dev.tether.avro.BlobReference;
import dev.tether.core.event.BlobRefs;
import dev.tether.core.id.StoreKey;
import dev.tether.kit.kafka.BlobReferences;
import dev.tether.kit.kafka.RunOnce;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.jboss.logging.Logger;

/**
 * The blobs each session of a task refers to ({@value ProjectorStores#SESSION_BLOBS}, keys only:
 * {@code sessionId NUL tenantId NUL sha256}), and their announcement on {@code blob-references}: a {@link BlobReference}
 * when a session first refers to a blob, a tombstone of its key when the session is erased ({@link BlobReferences}). That
 * topic is partitioned by blob, so that whether any session still refers to one is known on one partition
 * ({@link BlobSweeper}). A partition projected before this existed is filled from its message store once, when its task
 * first runs or at its first erasure if that comes first; its key {@link #FILLED} says so (a session id never starts with
 * NUL). Used by the projector's task, like its stores.
 */
final class SessionBlobs {

    static final String SINK = "blob-references-sink";

    /** The key that marks a partition's references as filled from its message store. */
    static final String FILLED = "\u0000filled";

    private static final Logger LOG = Logger.getLogger(SessionBlobs.class);

    private final ProcessorContext<Object, Object> context;
    private final KeyValueStore<String, String> store;
    private final SessionLog log;

    private SessionBlobs(ProcessorContext<Object, Object> context, KeyValueStore<String, String> store, SessionLog log) {
        this.context = context;
        this.store = store;
        this.log = log;
    }

    /** The store: persistent, changelogged, string keys and empty values. */
    static StoreBuilder<KeyValueStore<String, String>> builder() {
        return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(ProjectorStores.SESSION_BLOBS), Serdes.String(), Serdes.String());
    }

    /**
     * The references of {@code context}'s task, filled from {@code log} (its message store) by a punctuation as soon as
     * the task runs, or at its first erasure if that comes first, unless they were filled before.
     */
    static SessionBlobs open(ProcessorContext<Object, Object> context, SessionLog log) {
        var blobs = new SessionBlobs(context, context.getStateStore(ProjectorStores.SESSION_BLOBS), log);
        RunOnce.whenRunning(context, blobs::fill);
        return blobs;
    }

    /** {@link #fillOnce} from the task's message store, logged when it ran. */
    private void fill(long timestamp) {
        long started = System.nanoTime();
        long found = fillOnce(log, timestamp);
        if (found >= 0) {
            LOG.infof("found %d blob references in the message store of partition %d, in %d ms", found,
                    context.taskId().partition(), (System.nanoTime() - started) / 1_000_000);
        }
    }

    /** Records that {@code sessionId} (of {@code tenantId}) refers to the blob {@code sha256}; announced the first time. */
    void referred(String tenantId, String sessionId, String sha256, long timestamp) {
        String key = StoreKey.of(sessionId, tenantId, sha256);
        if (store.get(key) != null) {
            return;
        }
        store.put(key, "");
        var reference = BlobReference.newBuilder().setTenantId(tenantId).setSha256(sha256).setSessionId(sessionId).build();
        context.forward(new Record<Object, Object>(BlobReferences.key(tenantId, sha256, sessionId), reference, timestamp), SINK);
    }

    /**
     * The session was erased: each of its references is removed, and tombstoned on {@code blob-references}. A partition
     * not filled yet is filled first (a task may read records before its first punctuation), so that the references the
     * session's events still in the message store hold are known, and tombstoned too, rather than filled in after.
     */
    void erased(String sessionId, long timestamp) {
        fill(timestamp);
        var keys = new ArrayList<String>();
        try (var it = store.prefixScan(StoreKey.prefix(sessionId), new StringSerializer())) {
            it.forEachRemaining(kv -> keys.add(kv.key));
        }
        for (String key : keys) {
            store.delete(key);
            List<String> parts = StoreKey.parts(key);
            context.forward(new Record<Object, Object>(BlobReferences.key(parts.get(1), parts.get(2), sessionId), null, timestamp), SINK);
        }
    }

    /** Records the references of every event in {@code log}, unless that was done before; how many it found, or -1. */
    long fillOnce(SessionLog log, long timestamp) {
        if (store.get(FILLED) != null) {
            return -1;
        }
        long[] found = {0};
        log.forEachEvent(event -> BlobRefs.of(event.payload()).forEach(ref -> {
            referred(event.tenantId(), event.sessionId(), ref.sha256(), timestamp);
            found[0]++;
        }));
        store.put(FILLED, "");
        return found[0];
    }
}
