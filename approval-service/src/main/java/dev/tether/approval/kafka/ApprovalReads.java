package dev.tether.approval.kafka;

import dev.tether.approval.domain.ApprovalItem;
import dev.tether.approval.domain.SessionApprovals;
import dev.tether.core.event.CallRunner;
import dev.tether.kit.kafka.TenantIndex;
import dev.tether.kit.service.rest.ApiException;
import dev.tether.kit.service.rest.FirstInOrder;
import dev.tether.kit.service.rest.InteractiveStores;
import dev.tether.kit.service.rest.OwnerRouting;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Reads of the approval state (Kafka Streams interactive queries over this instance's partitions, which is every
 * partition when one instance runs), each scoped to a tenant: another tenant's session reads as missing. While the
 * application restores its state a read answers 503 with {@code Retry-After}, never stale data
 * ({@link InteractiveStores}); so does a read of one session whose partition this instance does not hold right now
 * (after a restart, during a rebalance), never 404.
 */
@ApplicationScoped
public class ApprovalReads {

    private final KafkaStreams streams;
    private final InteractiveStores stores;

    ApprovalReads(KafkaStreams streams) {
        this.streams = streams;
        this.stores = new InteractiveStores(streams, "the approval state");
    }

    /**
     * The session's approval state, if it exists and belongs to {@code tenantId}.
     *
     * @throws ApiException 503 with {@code Retry-After} if this instance does not hold the session's partition now
     */
    public Optional<SessionApprovals> session(String tenantId, String sessionId) {
        OwnerRouting.requireLocal(streams, ApprovalStores.SESSIONS, sessionId);
        SessionApprovals s = stores.<String, SessionApprovals>keyValue(ApprovalStores.SESSIONS).get(sessionId);
        return s != null && s.tenantId().equals(tenantId) ? Optional.of(s) : Optional.empty();
    }

    /** The tenant's pending items, oldest first, from the pending index. */
    public List<ApprovalItem> pending(String tenantId) {
        var out = new ArrayList<ApprovalItem>();
        forEachPending(tenantId, (s, i) -> out.add(i));
        out.sort(ApprovalItem.OLDEST_FIRST);
        return out;
    }

    /** An item as listed, with who runs its call while the call is open ({@link SessionApprovals#runBy}; else null). */
    public record Listed(ApprovalItem item, CallRunner runBy) {}

    /**
     * A page of the tenant's items that pass {@code filter}: the first {@code limit} in {@code order} after {@code after}
     * (from the first when null). Reads every session of the tenant this instance holds (through
     * {@value ApprovalStores#BY_TENANT}), or only the pending index when {@code pendingOnly}, but keeps no more than
     * {@code limit} items at a time.
     */
    public List<Listed> page(String tenantId, boolean pendingOnly, Predicate<ApprovalItem> filter,
                             Comparator<ApprovalItem.Place> order, ApprovalItem.Place after, int limit) {
        var page = new FirstInOrder<Listed>(Comparator.comparing((Listed l) -> ApprovalItem.Place.of(l.item()), order), limit);
        BiConsumer<SessionApprovals, ApprovalItem> offer = (s, i) -> {
            if (filter.test(i) && (after == null || order.compare(after, ApprovalItem.Place.of(i)) < 0)) {
                page.offer(new Listed(i, s.runBy(i.callId())));
            }
        };
        if (pendingOnly) {
            forEachPending(tenantId, offer);
        } else {
            forEachSession(tenantId, s -> s.items().forEach(i -> offer.accept(s, i)));
        }
        return page.sorted();
    }

    /** Each pending item of {@code tenantId} the pending index has, with its session. */
    private void forEachPending(String tenantId, BiConsumer<SessionApprovals, ApprovalItem> action) {
        ReadOnlyKeyValueStore<String, SessionApprovals> sessions = stores.keyValue(ApprovalStores.SESSIONS);
        ReadOnlyKeyValueStore<String, String> index = stores.keyValue(ApprovalStores.PENDING);
        try (var it = index.prefixScan(PendingIndex.prefix(tenantId), new StringSerializer())) {
            it.forEachRemaining(kv -> {
                PendingIndex.Entry entry = PendingIndex.parse(kv.key);
                SessionApprovals s = sessions.get(entry.sessionId());
                if (s != null && s.tenantId().equals(tenantId)) {
                    s.item(entry.seq()).filter(i -> i.status().pending()).ifPresent(i -> action.accept(s, i));
                }
            });
        }
    }

    /** A session-scope grant in force, with its session. */
    public record SessionGrant(String sessionId, SessionApprovals.Grant grant) {}

    /** The session-scope grants in force in the tenant's open sessions, oldest first. */
    public List<SessionGrant> grants(String tenantId) {
        var out = new ArrayList<SessionGrant>();
        forEachSession(tenantId, s -> {
            if (!s.closed()) {
                s.grants().forEach(g -> out.add(new SessionGrant(s.sessionId(), g)));
            }
        });
        out.sort(Comparator.comparing((SessionGrant g) -> g.grant().grantedAt()).thenComparing(SessionGrant::sessionId));
        return out;
    }

    /** Each session of {@code tenantId} this instance holds: the tenant's keys of the index, then their states. */
    private void forEachSession(String tenantId, Consumer<SessionApprovals> action) {
        ReadOnlyKeyValueStore<String, SessionApprovals> sessions = stores.keyValue(ApprovalStores.SESSIONS);
        for (String sessionId : TenantIndex.sessionIds(stores.keyValue(ApprovalStores.BY_TENANT), tenantId)) {
            SessionApprovals state = sessions.get(sessionId);
            if (state != null && state.tenantId().equals(tenantId)) { // erased a moment ago: its key goes in the same commit
                action.accept(state);
            }
        }
    }

}
