package dev.tether.projector.kafka;

import dev.tether.avro.Checkpoint;
import dev.tether.avro.LogPosition;
import dev.tether.avro.SessionEvent;
import dev.tether.core.id.StoreKey;
import dev.tether.kit.kafka.SessionEventKey;
import dev.tether.kit.kafka.TenantIndex;
import dev.tether.kit.service.rest.ApiException;
import dev.tether.kit.service.rest.FirstInOrder;
import dev.tether.kit.service.rest.InteractiveStores;
import dev.tether.kit.service.rest.OwnerRouting;
import dev.tether.projector.avro.CheckpointAvro;
import dev.tether.projector.domain.CallRecord;
import dev.tether.projector.domain.LazyEvents;
import dev.tether.projector.domain.Projection;
import dev.tether.projector.domain.SessionOverview;
import dev.tether.projector.domain.SessionProjection;
import dev.tether.projector.migration.UnmigratableCheckpointException;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Reads of the projector's stores (interactive queries), each scoped to the caller's tenant:
 * another tenant's session reads as missing. While the application restores its state a read
 * answers 503 with {@code Retry-After}, never stale data ({@link InteractiveStores}).
 */
@ApplicationScoped
public class ProjectorReads {

    private final KafkaStreams streams;
    private final InteractiveStores stores;

    ProjectorReads(KafkaStreams streams) {
        this.streams = streams;
        this.stores = new InteractiveStores(streams, "the projection");
    }

    /**
     * The session's current checkpoint, if it exists and belongs to {@code tenantId}: the stored one, migrated to the
     * current version if older. One that cannot be migrated (or comes from a newer projector) is folded from the log
     * here, through the stored one's last seq, as the projector will at the session's next event, and placed at the stored
     * one's log position (a fold of the log knows no offsets); the stored one is replaced then. If the log here does not
     * hold every one of those events yet, the answer is 503 with the reason.
     */
    public Optional<SessionProjection> checkpoint(String tenantId, String sessionId) {
        return checkpoint(tenantId, sessionId, OptionalInt.empty());
    }

    /**
     * As {@link #checkpoint(String, String)}, from this instance's warm copy of partition {@code copy} when it is set
     * ({@link OwnerRouting#serveLocallyOrForwardOrCopy}).
     */
    public Optional<SessionProjection> checkpoint(String tenantId, String sessionId, OptionalInt copy) {
        Checkpoint c = this.<String, Checkpoint>store(ProjectorStores.CHECKPOINTS, copy).get(sessionId);
        if (c == null || !c.getTenantId().equals(tenantId)) {
            return Optional.empty();
        }
        return Optional.of(load(tenantId, sessionId, c, copy));
    }

    /** The stores whose copies a read of a session's checkpoint, context or recovery report uses. */
    public static final List<String> SESSION_STORES = List.of(ProjectorStores.CHECKPOINTS, ProjectorStores.MESSAGES);

    private SessionProjection load(String tenantId, String sessionId, Checkpoint c) {
        return load(tenantId, sessionId, c, OptionalInt.empty());
    }

    private SessionProjection load(String tenantId, String sessionId, Checkpoint c, OptionalInt copy) {
        try {
            return CheckpointAvro.load(c).projection();
        } catch (UnmigratableCheckpointException e) {
            SessionProjection rebuilt;
            try {
                // every event the stored checkpoint folded: the events a warm copy has (or a session being erased has
                // left) would fold into another seq's checkpoint, or one the session never had
                rebuilt = log(copy).foldThrough(sessionId, c.getLastSeq());
            } catch (LazyEvents.MissingEvents missing) {
                rebuilt = null;
            }
            if (rebuilt == null || !rebuilt.tenantId().equals(tenantId)) {
                throw ApiException.unavailable(e.getMessage() + " This instance does not hold the session's events yet.", 5);
            }
            LogPosition at = c.getLogPosition();
            return Projection.placed(rebuilt,
                    new SessionProjection.Position(at.getPartition(), at.getFirstOffset(), at.getLastOffset()));
        }
    }

    /**
     * A page of the overviews of {@code tenantId}'s sessions whose partitions this instance holds, most recently active
     * first ({@link SessionOverview#LATEST_FIRST}): the first {@code limit} after {@code after} (from the first when null).
     * Every session of the tenant here is read (the tenant's keys of the by-tenant index, {@link ProjectorStores#BY_TENANT},
     * and each checkpoint loaded as {@link #checkpoint} loads it), but no more than {@code limit} are kept at a time.
     * Another tenant's sessions are not read.
     */
    public List<SessionOverview> sessions(String tenantId, SessionOverview.Place after, int limit) {
        ReadOnlyKeyValueStore<String, Checkpoint> checkpoints = stores.keyValue(ProjectorStores.CHECKPOINTS);
        var page = new FirstInOrder<SessionOverview>(SessionOverview.LATEST_FIRST, limit);
        for (String sessionId : TenantIndex.sessionIds(stores.keyValue(ProjectorStores.BY_TENANT), tenantId)) {
            Checkpoint c = checkpoints.get(sessionId);
            if (c == null || !c.getTenantId().equals(tenantId)) {
                continue; // erased a moment ago: its key goes in the same commit
            }
            SessionOverview overview = SessionOverview.of(load(tenantId, sessionId, c));
            if (after == null || after.isBefore(SessionOverview.Place.of(overview))) {
                page.offer(overview);
            }
        }
        return page.sorted();
    }

    public SessionLog log() {
        return log(OptionalInt.empty());
    }

    /** The log of this instance's partitions, or of its warm copy of partition {@code copy} when it is set. */
    public SessionLog log(OptionalInt copy) {
        ReadOnlyKeyValueStore<SessionEventKey, SessionEvent> messages = store(ProjectorStores.MESSAGES, copy);
        return new SessionLog(messages);
    }

    private <K, V> ReadOnlyKeyValueStore<K, V> store(String name, OptionalInt copy) {
        return copy.isPresent() ? stores.copy(name, copy.getAsInt()) : stores.keyValue(name);
    }

    public Optional<CallRecord> call(String sessionId, String callId) {
        return Optional.ofNullable(stores.<String, CallRecord>keyValue(ProjectorStores.CALLS).get(StoreKey.of(sessionId, callId)));
    }
}
