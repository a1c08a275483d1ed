package dev.tether.session.kafka;

import dev.tether.avro.SessionEvent;
import dev.tether.core.event.Event;
import dev.tether.core.id.StoreKey;
import dev.tether.kit.kafka.EventAvro;
import dev.tether.kit.kafka.SessionEventKey;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.service.TetherConfig;
import dev.tether.kit.service.rest.ApiException;
import dev.tether.kit.service.rest.FirstInOrder;
import dev.tether.kit.service.rest.InteractiveStores;
import dev.tether.session.domain.HarnessVersion;
import dev.tether.session.domain.SessionHead;
import dev.tether.session.domain.SessionSummary;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Reads of the sequencer's stores (Kafka Streams interactive queries): heads, events, session
 * lists, drain counts, harness versions. Every read is scoped to a tenant by its caller.
 *
 * <p>While the application is restoring its state a read answers 503 with {@code Retry-After},
 * never stale data ({@link InteractiveStores}). Reads are served from this instance's partitions;
 * a read of one session is sent to the instance holding it first ({@code OwnerRouting}).
 */
@ApplicationScoped
public class SessionStores {

    private static final Duration CATCH_UP = Duration.ofSeconds(5);

    private final InteractiveStores stores;
    private final StoreSignals signals;
    private final int partitions;

    SessionStores(KafkaStreams streams, StoreSignals signals, TetherConfig tether) {
        this.stores = new InteractiveStores(streams, "the session store");
        this.signals = signals;
        this.partitions = tether.layout().partitions();
    }

    /** The session's head, if it exists and belongs to {@code tenantId}. */
    public Optional<SessionHead> head(String tenantId, String sessionId) {
        SessionHead head = stores.<String, SessionHead>keyValue(StoreNames.HEADS).get(sessionId);
        return head != null && head.tenantId().equals(tenantId) ? Optional.of(head) : Optional.empty();
    }

    /**
     * Up to {@code limit} events of the session {@code head} is the head of from {@code fromSeq} on, in order, including
     * every event up to {@code lastSeq} in that range. The event store follows {@code session-events} a moment after the
     * sequencer accepted an append; a read right after a write waits for it (read your writes), as it waits for the store
     * to drop the events of an erased session of the id ({@link #holdsStartOf}), and answers 503 if the store does not
     * catch up in time.
     */
    public List<Event> events(SessionHead head, long fromSeq, int limit, long lastSeq) {
        String sessionId = head.sessionId();
        long wanted = Math.min(lastSeq, fromSeq + limit - 1);
        return await(StoreNames.EVENTS, sessionId, CATCH_UP, () -> {
            List<Event> page = events(sessionId, fromSeq, limit);
            // a page from the start holds the first event already
            List<Event> first = fromSeq > 1 ? events(sessionId, 1, 1) : page.subList(0, Math.min(1, page.size()));
            if (!holdsStartOf(head, first)) {
                return Optional.<List<Event>>empty();
            }
            long last = page.isEmpty() ? fromSeq - 1 : page.get(page.size() - 1).seq();
            return last >= wanted ? Optional.of(page) : Optional.empty();
        }).orElseThrow(() -> ApiException.unavailable("the event store is catching up with the log; try again shortly", 1));
    }

    /**
     * Whether the event store holds the start of the session {@code head} is the head of, given the event it holds at seq
     * 1 ({@code first}: empty, or that one event). The store follows the log a moment behind the sequencer: until then it
     * may still hold the events of an erased session of the id (another tenant's, maybe), which it drops before it takes
     * the first event of a session made again under the id (their tombstones come first in the partition); from then on,
     * every event it holds under the id is this session's. A head stored before sessions kept their start is told by its
     * tenant only.
     */
    public static boolean holdsStartOf(SessionHead head, List<Event> first) {
        if (first.isEmpty() || first.get(0).seq() != 1 || !first.get(0).tenantId().equals(head.tenantId())) {
            return false;
        }
        // to the millisecond, as the log keeps times
        return head.startedAt() == null || first.get(0).occurredAt().toEpochMilli() == head.startedAt().toEpochMilli();
    }

    /**
     * Waits until this instance's copy of {@code harness-versions} holds {@code entry} (read your writes), up to
     * {@code timeout}; whether it does by then.
     */
    public boolean awaitHarnessVersion(HarnessVersion entry, Duration timeout) {
        var written = HarnessVersionLog.toAvro(entry); // compared as stored: the log keeps milliseconds
        ReadOnlyKeyValueStore<String, dev.tether.avro.HarnessVersion> versions = stores.keyValue(StoreNames.HARNESS_VERSIONS);
        return await(StoreNames.HARNESS_VERSIONS, entry.key(), timeout,
                () -> Optional.of(written).filter(e -> e.equals(versions.get(entry.key())))).isPresent();
    }

    /** {@link StoreSignals#await}, woken by the materializer of {@code store}; 503 if the request thread is interrupted. */
    private <T> Optional<T> await(String store, String key, Duration timeout, Supplier<Optional<T>> check) {
        try {
            return signals.await(store, key, timeout, check);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted", 1);
        }
    }

    /** Up to {@code limit} events of the session from {@code fromSeq} on, in order, as the store has them now. */
    public List<Event> events(String sessionId, long fromSeq, int limit) {
        ReadOnlyKeyValueStore<SessionEventKey, SessionEvent> events = stores.keyValue(StoreNames.EVENTS);
        var page = new ArrayList<Event>();
        try (var it = events.range(new SessionEventKey(sessionId, Math.max(1, fromSeq)), new SessionEventKey(sessionId, Long.MAX_VALUE))) {
            while (it.hasNext() && page.size() < limit) {
                page.add(EventAvro.fromAvro(it.next().value));
            }
        }
        return page;
    }

    /**
     * A page of the tenant's sessions this instance holds, in id order: the first {@code limit} whose ids come after
     * {@code after} (null: from the first), optionally only those with {@code status} (open, closed), each with the last
     * seq and the start of its head (the stored summary's seq is that of its last change, and it keeps no start;
     * {@link SessionSummary#listsAs}). Each partition's
     * summaries are read on their own, in key order, up to its first {@code limit} that pass: at most that many per
     * partition (and those of another status it passes over) are read, however many the tenant has, and only the
     * page's heads are looked up.
     */
    public List<SessionSummary> sessions(String tenantId, String status, String after, int limit) {
        ReadOnlyKeyValueStore<String, SessionHead> heads = stores.keyValue(StoreNames.HEADS);
        String from = after == null ? StoreKey.prefix(tenantId) : StoreKey.of(tenantId, after);
        var first = new FirstInOrder<SessionSummary>(Comparator.comparing(SessionSummary::sessionId), limit);
        for (ReadOnlyKeyValueStore<String, SessionSummary> index : stores.<String, SessionSummary>keyValueByPartition(
                StoreNames.SESSIONS_BY_TENANT, partitions)) {
            int taken = 0;
            // every key of the tenant starts with its prefix, tenantId NUL, and sorts below tenantId U+0001
            try (var it = index.range(from, tenantId + '\u0001')) {
                while (taken < limit && it.hasNext()) {
                    SessionSummary summary = it.next().value;
                    if ((after == null || summary.sessionId().compareTo(after) > 0) && (status == null || status.equals(summary.status()))) {
                        first.offer(summary);
                        taken++;
                    }
                }
            }
        }
        var page = new ArrayList<SessionSummary>(limit);
        first.sorted().forEach(summary -> {
            SessionHead head = heads.get(summary.sessionId());
            page.add(head == null ? summary : summary.withHead(head.lastSeq(), head.startedAt()));
        });
        return page;
    }

    /**
     * The tenant's open sessions per harness version. Every sequencer task (one per partition) counts its own sessions in
     * its own store, by tenant and version ({@link HarnessVersion#key}), so the same version comes back once per task: the
     * counts are summed. Only this instance's tasks count; the API adds the other instances' ({@code HarnessVersionResource}).
     */
    public Map<String, Long> openSessionsByVersion(String tenantId) {
        ReadOnlyKeyValueStore<String, Long> counts = stores.keyValue(StoreNames.OPEN_BY_VERSION);
        String prefix = HarnessVersion.key(tenantId, "");
        var byVersion = new LinkedHashMap<String, Long>();
        try (var it = counts.prefixScan(prefix, new StringSerializer())) {
            it.forEachRemaining(kv -> byVersion.merge(kv.key.substring(prefix.length()), kv.value, Long::sum));
        }
        return byVersion;
    }

    /** Every entry of {@code harness-versions}, every tenant's: a caller takes its tenant's ({@code HarnessAssignment}). */
    public List<HarnessVersion> harnessVersions() {
        ReadOnlyKeyValueStore<String, dev.tether.avro.HarnessVersion> versions = stores.keyValue(StoreNames.HARNESS_VERSIONS);
        var all = new ArrayList<HarnessVersion>();
        try (var it = versions.all()) {
            it.forEachRemaining(kv -> all.add(HarnessVersionLog.fromAvro(kv.value)));
        }
        return all;
    }
}
