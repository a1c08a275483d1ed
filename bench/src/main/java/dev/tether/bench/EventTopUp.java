package dev.tether.bench;

import dev.tether.avro.SessionEvent;
import dev.tether.bench.fold.AgentTurns;
import dev.tether.core.event.Event;
import dev.tether.kit.kafka.AvroSerdes;
import dev.tether.kit.kafka.EventAvro;
import dev.tether.kit.kafka.ProducerSettings;
import dev.tether.kit.kafka.SessionEventKey;
import dev.tether.kit.kafka.SessionEventKeySerde;
import dev.tether.kit.kafka.SessionPartitioner;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.Serde;

/**
 * Figure 8's top-up: fresh sessions written straight into the run's {@code session-events}, past the session-service.
 * Figure 8 measures the projector's recovery, not appends, and appending 800,000 events through the SDK at the
 * append rates of figure 2 would take longer than the whole run may. The records are what the sequencer writes:
 * a {@link SessionEventKey} key in its binary form ({@link SessionEventKeySerde}), a {@code SessionEvent} value
 * through the same Apicurio serializer and registry ({@link AvroSerdes}), on the partition {@link SessionPartitioner}
 * gives the session; each session's seqs run 1..N without gaps, starting with {@code session_started}
 * ({@link AgentTurns}; or, for figure 4's warm backlog, user messages as figure 2 appends). The producer is idempotent with {@code acks=all}, not transactional: its records are
 * committed as they are written, which a {@code read_committed} reader cannot tell from the sequencer's.
 */
final class EventTopUp {

    /**
     * @param sessions  each written session's last seq, by session id
     * @param events    events written (all acknowledged)
     * @param seconds   from the first send to the last acknowledgement
     */
    record Written(Map<String, Long> sessions, long events, double seconds) {
        double eventsPerSec() {
            return events / seconds;
        }
    }

    /** A session's event at a seq, carrying a text. */
    @FunctionalInterface
    interface Shape {
        Event event(String sessionId, long seq, String eventId, Instant occurredAt, String text);
    }

    private EventTopUp() {
    }

    /**
     * Writes {@code events} events over {@code sessions} new sessions named {@code idPrefix-0…}, whose messages carry
     * {@code textBytes} of text. The sessions advance together, one event each in turn, as many agents working at once.
     */
    static Written write(Map<String, Object> clientConfig, String registryUrl, String topic, String idPrefix, int sessions,
            long events, int textBytes) throws InterruptedException {
        return write(clientConfig, registryUrl, topic, idPrefix, sessions, 1, events, textBytes);
    }

    /**
     * Writes {@code events} more events over the sessions {@code idPrefix-0…} that this top-up wrote before, each of them
     * then at seq {@code fromSeq - 1} (as {@link #write} leaves them when the events divide evenly); 1 for new sessions.
     */
    static Written write(Map<String, Object> clientConfig, String registryUrl, String topic, String idPrefix, int sessions,
            long fromSeq, long events, int textBytes) throws InterruptedException {
        return write(clientConfig, registryUrl, topic, idPrefix, sessions, fromSeq, events, textBytes, AgentTurns::event);
    }

    /** As {@link #write(Map, String, String, String, int, long, long, int)}, the events of {@code shape} rather than agent turns. */
    static Written write(Map<String, Object> clientConfig, String registryUrl, String topic, String idPrefix, int sessions,
            long fromSeq, long events, int textBytes, Shape shape) throws InterruptedException {
        Map<String, Object> props = ProducerSettings.reliable(clientConfig)
                .with(ProducerConfig.CLIENT_ID_CONFIG, "bench-top-up")
                .partitionedBySession()
                .lingerMs(20)
                .with(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024)
                .with(ProducerConfig.BUFFER_MEMORY_CONFIG, 64L * 1024 * 1024)
                .toMap();

        long[] lengths = new long[sessions];
        for (int i = 0; i < sessions; i++) {
            lengths[i] = events / sessions + (i < events % sessions ? 1 : 0);
        }
        long longest = lengths[0];
        String text = AppendLoad.text(textBytes);
        var pending = new ArrayList<Future<RecordMetadata>>();
        long written = 0;
        long start = System.nanoTime();
        try (Serde<SessionEvent> values = AvroSerdes.valueSerde(registryUrl);
             var producer = new KafkaProducer<>(props, new SessionEventKeySerde(), values.serializer())) {
            for (long n = 0; n < longest; n++) {
                long seq = fromSeq + n;
                for (int i = 0; i < sessions; i++) {
                    if (n >= lengths[i]) {
                        continue;
                    }
                    String sessionId = idPrefix + "-" + i;
                    var event = shape.event(sessionId, seq, UUID.randomUUID().toString(), Instant.now(), text);
                    pending.add(producer.send(new ProducerRecord<>(topic, new SessionEventKey(sessionId, seq), EventAvro.toAvro(event))));
                    written++;
                }
                if (pending.size() >= 50_000) {
                    awaitAll(pending);
                }
            }
            producer.flush();
            awaitAll(pending);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        var last = new LinkedHashMap<String, Long>();
        for (int i = 0; i < sessions; i++) {
            last.put(idPrefix + "-" + i, fromSeq + lengths[i] - 1);
        }
        return new Written(last, written, seconds);
    }

    /** Throws if any of the sends failed; the producer retries on its own, so a failure here is final. */
    private static void awaitAll(List<Future<RecordMetadata>> sends) throws InterruptedException {
        try {
            for (Future<RecordMetadata> f : sends) {
                f.get(5, TimeUnit.MINUTES);
            }
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("the top-up's write to session-events failed", e);
        }
        sends.clear();
    }
}
