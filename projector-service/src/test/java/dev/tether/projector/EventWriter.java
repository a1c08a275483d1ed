package dev.tether.projector;

import dev.tether.avro.SessionEvent;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.kit.kafka.AvroSerdes;
import dev.tether.kit.kafka.EventAvro;
import dev.tether.kit.kafka.SessionEventKey;
import dev.tether.kit.kafka.SessionEventKeySerde;
import dev.tether.kit.kafka.SessionPartitioner;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import dev.tether.testing.TetherStack;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serde;

/**
 * Writes a session's events to {@code session-events} as the sequencer would (gapless seqs, the
 * session-events key and partitioner, Avro through the registry): the projector's tests feed it
 * the log directly. Not thread-safe.
 */
final class EventWriter implements AutoCloseable {

    private final Serde<SessionEvent> serde;
    private final KafkaProducer<SessionEventKey, SessionEvent> producer;
    private final String topic;
    private final String tenantId;

    EventWriter(TopicLayout layout, String tenantId) {
        TetherStack stack = TetherStack.shared();
        this.serde = AvroSerdes.valueSerde(stack.registryUrl());
        var config = new HashMap<>(stack.clientConfig());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, SessionPartitioner.class.getName());
        this.producer = new KafkaProducer<>(config, new SessionEventKeySerde(), serde.serializer());
        this.topic = layout.name(Topics.SESSION_EVENTS);
        this.tenantId = tenantId;
    }

    /** A session being written, from seq 1. */
    final class Session {
        final String sessionId;
        final List<Event> written = new ArrayList<>();

        Session(String sessionId) {
            this.sessionId = sessionId;
        }

        Session add(EventPayload... payloads) {
            for (EventPayload p : payloads) {
                long seq = written.size() + 1;
                var event = new Event(sessionId + "-" + seq, sessionId, tenantId, seq, Instant.parse("2026-11-29T10:00:00Z").plusSeconds(seq),
                        new Actor(ActorKind.USER, "acme-agent"), "v1", p);
                producer.send(new ProducerRecord<>(topic, new SessionEventKey(sessionId, seq), EventAvro.toAvro(event)));
                written.add(event);
            }
            producer.flush();
            return this;
        }

        long lastSeq() {
            return written.size();
        }
    }

    Session session(String sessionId) {
        return new Session(sessionId);
    }

    @Override
    public void close() {
        producer.close();
        serde.close();
    }
}
