package dev.tether.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.avro.SessionEvent;
import dev.tether.testing.TetherStack;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.Serde;
import org.junit.jupiter.api.Test;

/**
 * Log compaction of {@code session-events} loses nothing: every event has its own key, so the
 * cleaner keeps them all, and only the tombstones of an erased session remove anything.
 */
class CompactionIT {

    private static final int SESSIONS = 100;
    private static final int EVENTS_PER_SESSION = 20;
    private static final Duration CLEANER_TIMEOUT = Duration.ofSeconds(120);

    private final TetherStack stack = TetherStack.shared();

    @Test
    void erasingOneSession_removesExactlyItsEvents_andKeepsEveryOtherEventInOrder() throws Exception {
        TopicLayout layout = TopicLayout.local().withPrefix("compaction-" + UUID.randomUUID() + ".");
        TopicSpec spec = Topics.spec(layout, Topics.SESSION_EVENTS);
        String topic = spec.name();
        try (Admin admin = Admin.create(stack.clientConfig())) {
            // session-events exactly as defined, plus settings that make the cleaner run within seconds
            var configs = new HashMap<>(spec.configs());
            configs.put(TopicConfig.SEGMENT_MS_CONFIG, "100");
            configs.put(TopicConfig.MIN_CLEANABLE_DIRTY_RATIO_CONFIG, "0.001");
            configs.put(TopicConfig.DELETE_RETENTION_MS_CONFIG, "100");
            configs.put(TopicConfig.MIN_COMPACTION_LAG_MS_CONFIG, "0");
            new TopicInitializer(admin, Duration.ofSeconds(30))
                    .create(List.of(new NewTopic(topic, spec.partitions(), spec.replicationFactor()).configs(configs)));
            var broker = new ConfigResource(ConfigResource.Type.BROKER, "");
            admin.incrementalAlterConfigs(Map.of(broker, List.of(
                    new AlterConfigOp(new ConfigEntry("log.cleaner.backoff.ms", "500"), AlterConfigOp.OpType.SET)))).all().get();
        }
        new SchemaRegistryInitializer(stack.ccompatUrl(), Duration.ofSeconds(30)).init(layout);

        var sessions = new ArrayList<String>();
        for (int s = 0; s < SESSIONS; s++) {
            sessions.add("session-%03d-%s".formatted(s, UUID.randomUUID()));
        }
        String erased = sessions.get(37);

        try (Serde<SessionEvent> serde = AvroSerdes.valueSerde(stack.registryUrl());
                var producer = new KafkaProducer<>(producerConfig(), new SessionEventKeySerde(), serde.serializer())) {
            // interleaved, as live sessions write
            for (int seq = 1; seq <= EVENTS_PER_SESSION; seq++) {
                for (String session : sessions) {
                    producer.send(new ProducerRecord<>(topic, new SessionEventKey(session, seq), SampleEvents.userMessage(session, seq, text(session, seq))));
                }
            }
            producer.flush();
            for (int seq = 1; seq <= EVENTS_PER_SESSION; seq++) {
                producer.send(new ProducerRecord<>(topic, new SessionEventKey(erased, seq), null));
            }
            producer.flush();
            // a last tombstone after segment.ms rolls the segment, so the cleaner may clean all the others
            Thread.sleep(300);
            producer.send(new ProducerRecord<>(topic, new SessionEventKey(erased, 1), null)).get();
        }

        Map<String, List<SessionEvent>> survivors = awaitCleaned(topic, erased);

        assertThat(survivors).doesNotContainKey(erased);
        assertThat(survivors).hasSize(SESSIONS - 1);
        for (String session : sessions) {
            if (session.equals(erased)) {
                continue;
            }
            List<SessionEvent> events = survivors.get(session);
            assertThat(events).as(session).extracting(SessionEvent::getSeq)
                    .containsExactlyElementsOf(java.util.stream.LongStream.rangeClosed(1, EVENTS_PER_SESSION).boxed().toList());
            assertThat(events).as(session).allSatisfy(e ->
                    assertThat(e.getPayload().getUserMessage().getContent()).isEqualTo(text(session, e.getSeq())));
        }
    }

    /**
     * Reads the whole topic until the cleaner has removed every value of the erased session (it
     * was there before, so its absence proves the cleaner ran); returns the values per session, in
     * log order.
     */
    private Map<String, List<SessionEvent>> awaitCleaned(String topic, String erased) throws InterruptedException {
        long deadline = System.nanoTime() + CLEANER_TIMEOUT.toNanos();
        Map<String, List<SessionEvent>> all;
        do {
            all = readAll(topic);
            if (!all.containsKey(erased)) {
                return all;
            }
            Thread.sleep(1000);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("the log cleaner did not erase " + erased + " within " + CLEANER_TIMEOUT
                + "; still there: " + all.get(erased).size() + " events");
    }

    private Map<String, List<SessionEvent>> readAll(String topic) {
        var config = new HashMap<>(stack.clientConfig());
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        var bySession = new LinkedHashMap<String, List<SessionEvent>>();
        try (Serde<SessionEvent> serde = AvroSerdes.valueSerde(stack.registryUrl());
                var consumer = new KafkaConsumer<>(config, new SessionEventKeySerde(), serde.deserializer())) {
            var partitions = consumer.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                for (var record : consumer.poll(Duration.ofMillis(200))) {
                    if (record.value() != null) {
                        assertThat(record.value().getSessionId()).isEqualTo(record.key().sessionId());
                        bySession.computeIfAbsent(record.key().sessionId(), k -> new ArrayList<>()).add(record.value());
                    }
                }
            }
        }
        return bySession;
    }

    private HashMap<String, Object> producerConfig() {
        var config = new HashMap<>(stack.clientConfig());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, SessionPartitioner.class.getName());
        return config;
    }

    private static String text(String session, long seq) {
        return "event " + seq + " of " + session;
    }
}
