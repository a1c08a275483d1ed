package dev.tether.bench;

import dev.tether.avro.SessionEvent;
import dev.tether.bench.fold.AgentTurns;
import dev.tether.kit.kafka.AvroSerdes;
import dev.tether.kit.kafka.EventAvro;
import dev.tether.kit.kafka.SessionEventKey;
import dev.tether.kit.kafka.SessionEventKeySerde;
import dev.tether.kit.kafka.SessionPartitioner;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serde;

/**
 * Holds every {@code read_committed} reader of {@code session-events} where it is: a transaction left open over one
 * event in each partition, until {@link #release()} commits it. Such a reader reads up to the last stable offset, so
 * what any producer writes after the held events is delivered to none of them before the release, and all of it at once
 * after. The held events are real ones, each the {@code session_started} of a session of its own (one per partition,
 * {@code <prefix>-<partition>}), so that every reader has a record to process in every partition after the release and
 * commits its offsets past the transaction's marker (a reader that processed nothing there would commit nothing, and
 * look behind the topic's end for ever).
 */
final class BacklogHold implements AutoCloseable {

    /** Longer than a backlog takes to write; the broker aborts the transaction itself after it (at most its 15 minutes). */
    private static final Duration TRANSACTION_TIMEOUT = Duration.ofMinutes(10);

    private final KafkaProducer<SessionEventKey, SessionEvent> producer;
    private final Serde<SessionEvent> values;
    private final int sessions;
    private boolean held;

    private BacklogHold(KafkaProducer<SessionEventKey, SessionEvent> producer, Serde<SessionEvent> values, int sessions) {
        this.producer = producer;
        this.values = values;
        this.sessions = sessions;
    }

    /** Holds {@code topic}'s readers from now: returns once the held events are on the broker. */
    static BacklogHold open(Map<String, Object> clientConfig, String registryUrl, String topic, String idPrefix)
            throws InterruptedException {
        var props = new HashMap<>(clientConfig);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "bench-backlog-hold");
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "bench-backlog-hold-" + UUID.randomUUID());
        props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, (int) TRANSACTION_TIMEOUT.toMillis());
        Serde<SessionEvent> values = AvroSerdes.valueSerde(registryUrl);
        var producer = new KafkaProducer<>(props, new SessionEventKeySerde(), values.serializer());
        int partitions = producer.partitionsFor(topic).size();
        var hold = new BacklogHold(producer, values, partitions);
        try {
            producer.initTransactions();
            producer.beginTransaction();
            hold.held = true;
            List<Future<?>> sends = new ArrayList<>();
            for (String sessionId : onePerPartition(idPrefix, partitions)) {
                var start = AgentTurns.userMessage(sessionId, 1, UUID.randomUUID().toString(), Instant.now(), "");
                sends.add(producer.send(new ProducerRecord<>(topic, new SessionEventKey(sessionId, 1), EventAvro.toAvro(start))));
            }
            for (var send : sends) {
                send.get(1, TimeUnit.MINUTES);
            }
            return hold;
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            hold.close();
            throw new IllegalStateException("could not hold the readers of " + topic, e);
        }
    }

    /** Session ids {@code <prefix>-<n>}, the first of them on each of the {@code partitions} ({@link SessionPartitioner}). */
    private static List<String> onePerPartition(String idPrefix, int partitions) {
        var byPartition = new String[partitions];
        int found = 0;
        for (int n = 0; found < partitions; n++) {
            String id = idPrefix + "-" + n;
            int p = SessionPartitioner.partition(id, partitions);
            if (byPartition[p] == null) {
                byPartition[p] = id;
                found++;
            }
        }
        return List.of(byPartition);
    }

    /** The held events, one per partition: records of the topic the readers process too. */
    int events() {
        return sessions;
    }

    /** Lets the readers go on: the held events are committed, and what was written after them is stable. */
    void release() {
        if (held) {
            held = false;
            producer.commitTransaction();
        }
    }

    /** Ends the hold if it was not released (the held events are aborted then), and closes the producer. */
    @Override
    public void close() {
        try {
            if (held) {
                held = false;
                producer.abortTransaction();
            }
        } finally {
            producer.close(Duration.ofSeconds(10));
            values.close();
        }
    }
}
