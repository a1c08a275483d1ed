package dev.tether.projector.kafka;

import dev.tether.core.blob.BlobStore;
import dev.tether.core.id.StoreKey;
import dev.tether.kit.kafka.BlobReferences;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.jboss.logging.Logger;

/**
 * Deletes the blobs no session refers to any more. It reads {@code blob-references} (partitioned by blob, so every
 * reference to a blob is on one partition) beside {@value ProjectorStores#BLOB_REFERENCES}, the store of that topic: a
 * tombstone that leaves a blob without a reference makes it {@linkplain ProjectorStores#UNREFERENCED unreferenced} (a
 * session's erasure, or a service's nomination of a blob it just put: {@link BlobReferences}), a reference makes it
 * referred to again. Every {@link Sweeping#every}, each unreferenced blob is deleted unless it was put within the
 * {@link Sweeping#grace} before the {@linkplain ReferenceHorizon horizon} ({@link BlobStore#deleteUnlessPutSince}): a
 * blob put later may be the content of an event whose reference has not reached this partition yet, such as the same
 * bytes offloaded again for another session just after the last session that referred to them was erased. The horizon
 * is how far the sequencer, the projector and this sweeper are known to have come, across every instance; the grace
 * covers a service's time from a put to writing the command or outcome that carries it. A blob put for an event that
 * was then refused, which its service nominated, goes once both have passed.
 *
 * <p>A crash between a deletion and the commit that forgets the blob deletes nothing more: the blob is then absent.
 */
public final class BlobSweeper implements Processor<String, byte[], Void, Void> {

    private static final Logger LOG = Logger.getLogger(BlobSweeper.class);

    /**
     * Where and when unreferenced blobs are deleted.
     *
     * @param blobs   the blob store the services offload to
     * @param grace   how recently before the horizon a blob must not have been put for it to be deleted: the longest a
     *                service may take from a put to writing the command or outcome that carries its ref
     * @param every   how often the unreferenced blobs are looked at
     * @param tally   told what each sweep deleted and left waiting (metrics)
     * @param horizon the time before which every command and outcome written has had its references read here
     *                ({@link ReferenceHorizon})
     */
    public record Sweeping(BlobStore blobs, Duration grace, Duration every, Tally tally, Supplier<Instant> horizon) {
        public Sweeping {
            Objects.requireNonNull(blobs, "blobs");
            Objects.requireNonNull(tally, "tally");
            Objects.requireNonNull(horizon, "horizon");
            if (grace.isNegative() || every.isNegative() || every.isZero()) {
                throw new IllegalArgumentException("the grace must not be negative and the interval positive, got " + grace + " and " + every);
            }
        }
    }

    /** What the sweeps tell the projector's metrics; called on the stream threads. */
    public interface Tally {

        /** A sweep deleted {@code blobs}. */
        void deleted(int blobs);

        /** After a sweep of {@code task}'s partition, {@code blobs} unreferenced blobs wait there (0 once the task closes). */
        void waiting(TaskId task, int blobs);
    }

    private final Sweeping sweeping;
    private ProcessorContext<Void, Void> context;
    private ReadOnlyKeyValueStore<String, byte[]> references;
    private KeyValueStore<String, String> unreferenced;
    private int staleNominations;
    private long stalestNominationMs;

    /** @param sweeping null to keep track of the unreferenced blobs without deleting them */
    BlobSweeper(Sweeping sweeping) {
        this.sweeping = sweeping;
    }

    /** The store of unreferenced blobs ({@code tenantId NUL sha256} → ""): persistent, changelogged. */
    static StoreBuilder<KeyValueStore<String, String>> unreferencedBuilder() {
        return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(ProjectorStores.UNREFERENCED), Serdes.String(), Serdes.String());
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        this.context = context;
        references = context.getStateStore(ProjectorStores.BLOB_REFERENCES);
        unreferenced = context.getStateStore(ProjectorStores.UNREFERENCED);
        if (sweeping != null) {
            context.schedule(sweeping.every(), PunctuationType.WALL_CLOCK_TIME, now -> sweep(Instant.ofEpochMilli(now)));
        }
    }

    @Override
    public void process(Record<String, byte[]> record) {
        String blob = BlobReferences.blobOf(record.key());
        if (record.value() != null) {
            unreferenced.delete(blob);
        } else if (BlobReferences.isNomination(record.key()) && sweeping != null
                && record.timestamp() < context.currentSystemTimeMs() - sweeping.grace().toMillis()) {
            // written while no projector read this topic (before the projectors were upgraded to a release with it, or in an
            // outage longer than the grace): the reference it waits for may be in a partition whose one-time fill from the
            // message store has not reached this one yet, so it nominates nothing
            long age = context.currentSystemTimeMs() - record.timestamp();
            LOG.debugf("ignored the nomination of %s, written %d ms ago", blob, age);
            staleNominations++;
            stalestNominationMs = Math.max(stalestNominationMs, age);
        } else if (!referredTo(blob, record.key())) {
            unreferenced.put(blob, "");
        }
    }

    @Override
    public void close() {
        if (sweeping != null) {
            sweeping.tally().waiting(context.taskId(), 0); // another instance's sweeps count them now
        }
    }

    /**
     * Deletes each unreferenced blob not put since the grace before the horizon (or before {@code now}, if that is
     * earlier); returns how many it deleted.
     */
    int sweep(Instant now) {
        if (staleNominations > 0) {
            LOG.infof("ignored %d nomination(s) read more than the grace (%s) after they were written, the oldest %d ms: their blobs"
                    + " are kept unless a session that refers to them is erased", staleNominations, sweeping.grace(), stalestNominationMs);
            staleNominations = 0;
            stalestNominationMs = 0;
        }
        Instant horizon = sweeping.horizon().get();
        Instant since = (horizon.isBefore(now) ? horizon : now).minus(sweeping.grace());
        var blobs = new ArrayList<String>();
        try (var all = unreferenced.all()) {
            all.forEachRemaining(kv -> blobs.add(kv.key));
        }
        int deleted = 0;
        int waiting = 0;
        for (String blob : blobs) {
            if (referredTo(blob, null)) {
                unreferenced.delete(blob); // cannot happen (a reference removes it), but a blob referred to is never deleted
                continue;
            }
            List<String> parts = StoreKey.parts(blob);
            BlobStore.Removal removal;
            try {
                removal = sweeping.blobs().deleteUnlessPutSince(parts.get(0), parts.get(1), since);
            } catch (RuntimeException e) {
                // the store's failure must not stop the projection: the blob is tried again at the next sweep
                LOG.warnf(e, "could not delete blob %s of tenant %s, which no session refers to any more", parts.get(1), parts.get(0));
                waiting++;
                continue;
            }
            switch (removal) {
                case DELETED -> {
                    deleted++;
                    unreferenced.delete(blob);
                }
                case ABSENT -> unreferenced.delete(blob);
                case PUT_SINCE -> waiting++; // looked at again at the next sweep
            }
        }
        if (deleted > 0) {
            LOG.infof("deleted %d blobs no session refers to any more", deleted);
            sweeping.tally().deleted(deleted);
        }
        sweeping.tally().waiting(context.taskId(), waiting);
        return deleted;
    }

    /** Whether a session refers to {@code blob}, {@code removed} (a reference just tombstoned) aside. */
    private boolean referredTo(String blob, String removed) {
        try (var it = references.prefixScan(blob + StoreKey.SEPARATOR, new StringSerializer())) {
            while (it.hasNext()) {
                if (!it.next().key.equals(removed)) {
                    return true;
                }
            }
            return false;
        }
    }
}
