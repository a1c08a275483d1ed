package dev.tether.session.kafka;

import dev.tether.avro.HarnessVersion;
import dev.tether.avro.SessionEvent;
import dev.tether.core.event.Event;
import dev.tether.core.id.StoreKey;
import dev.tether.kit.kafka.EventAvro;
import dev.tether.kit.kafka.SessionEventKey;
import dev.tether.kit.service.rest.ApiException;
import dev.tether.session.domain.SessionHead;
import dev.tether.session.domain.SessionSummary;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Reads of the sequencer's stores (Kafka Streams interactive queries): heads, events, session
 * lists, drain counts, harness versions. Every read is scoped to a tenant by its caller.
 *
 * <p>While the application is restoring its state a read answers 503 with {@code Retry-After},
 * never stale data. Reads are served from this instance's partitions, which is every partition
 * when one instance runs; routing to the instance that owns a partition is not built yet.
 */
@ApplicationScoped
public class SessionStores {

    private static final java.time.Duration CATCH_UP = java.time.Duration.ofSeconds(5);

    private final KafkaStreams streams;

    SessionStores(KafkaStreams streams) {
        this.streams = streams;
    }

    /** The session's head, if it exists and belongs to {@code tenantId}. */
    public Optional<SessionHead> head(String tenantId, String sessionId) {
        SessionHead head = this.<String, SessionHead>store(StoreNames.HEADS).get(sessionId);
        return head != null && head.tenantId().equals(tenantId) ? Optional.of(head) : Optional.empty();
    }

    /**
     * Up to {@code limit} events of the session from {@code fromSeq} on, in order, including every
     * event up to {@code lastSeq} in that range. The event store follows {@code session-events}
     * a moment after the sequencer accepted an append; a read right after a write waits for it
     * (read your writes), and answers 503 if the store does not catch up in time.
     */
    public List<Event> events(String sessionId, long fromSeq, int limit, long lastSeq) {
        long wanted = Math.min(lastSeq, fromSeq + limit - 1);
        long deadline = System.nanoTime() + CATCH_UP.toNanos();
        while (true) {
            List<Event> page = events(sessionId, fromSeq, limit);
            long last = page.isEmpty() ? fromSeq - 1 : page.get(page.size() - 1).seq();
            if (last >= wanted) {
                return page;
            }
            if (System.nanoTime() > deadline) {
                throw ApiException.unavailable("the event store is catching up with the log; try again shortly", 1);
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw ApiException.unavailable("interrupted", 1);
            }
        }
    }

    /** Up to {@code limit} events of the session from {@code fromSeq} on, in order, as the store has them now. */
    public List<Event> events(String sessionId, long fromSeq, int limit) {
        ReadOnlyKeyValueStore<SessionEventKey, SessionEvent> events = store(StoreNames.EVENTS);
        var page = new ArrayList<Event>();
        try (var it = events.range(new SessionEventKey(sessionId, Math.max(1, fromSeq)), new SessionEventKey(sessionId, Long.MAX_VALUE))) {
            while (it.hasNext() && page.size() < limit) {
                page.add(EventAvro.fromAvro(it.next().value));
            }
        }
        return page;
    }

    /** The tenant's sessions, optionally only those with {@code status} (open, closed). */
    public List<SessionSummary> sessions(String tenantId, String status) {
        ReadOnlyKeyValueStore<String, SessionSummary> index = store(StoreNames.SESSIONS_BY_TENANT);
        var found = new ArrayList<SessionSummary>();
        try (var it = index.prefixScan(StoreKey.prefix(tenantId), new StringSerializer())) {
            it.forEachRemaining(kv -> {
                if (status == null || status.equals(kv.value.status())) {
                    found.add(kv.value);
                }
            });
        }
        return found;
    }

    /**
     * Open sessions per harness version. Every sequencer task (one per partition) counts its own sessions in its own
     * store, so the same version comes back once per task: the counts are summed. Only this instance's tasks count.
     */
    public Map<String, Long> openSessionsByVersion() {
        ReadOnlyKeyValueStore<String, Long> counts = store(StoreNames.OPEN_BY_VERSION);
        var byVersion = new LinkedHashMap<String, Long>();
        try (var it = counts.all()) {
            it.forEachRemaining(kv -> byVersion.merge(kv.key, kv.value, Long::sum));
        }
        return byVersion;
    }

    /** Every harness version entry, by version. */
    public Map<String, HarnessVersion> harnessVersions() {
        ReadOnlyKeyValueStore<String, HarnessVersion> versions = store(StoreNames.HARNESS_VERSIONS);
        var all = new LinkedHashMap<String, HarnessVersion>();
        try (var it = versions.all()) {
            it.forEachRemaining(kv -> all.put(kv.key, kv.value));
        }
        return all;
    }

    private <K, V> ReadOnlyKeyValueStore<K, V> store(String name) {
        if (streams.state() != KafkaStreams.State.RUNNING) {
            throw ApiException.unavailable("the session store is " + streams.state().name().toLowerCase() + "; try again shortly", 1);
        }
        try {
            return streams.store(StoreQueryParameters.fromNameAndType(name, QueryableStoreTypes.<K, V>keyValueStore()));
        } catch (InvalidStateStoreException e) {
            throw ApiException.unavailable("the session store is restoring; try again shortly", 1);
        }
    }
}
