package dev.tether.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.testing.TetherStack;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** On the real broker: an event key lands where the default partitioner puts its plain sessionId. */
class SessionPartitionerIT {

    private static final int PARTITIONS = 12;

    @Test
    void eventKeys_landOnThePartitionOfTheirSessionId_for10000RandomIds() throws Exception {
        String prefix = "partitioner-" + UUID.randomUUID();
        String plainTopic = prefix + ".by-session-id";
        String eventsTopic = prefix + ".by-event-key";
        try (Admin admin = Admin.create(TetherStack.shared().clientConfig())) {
            new TopicInitializer(admin, Duration.ofSeconds(30)).create(List.of(
                    new NewTopic(plainTopic, PARTITIONS, (short) 1), new NewTopic(eventsTopic, PARTITIONS, (short) 1)));
        }
        List<String> ids = SessionPartitionerTest.randomSessionIds(10_000, new Random(42));

        var plainConfig = new HashMap<>(TetherStack.shared().clientConfig());
        plainConfig.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        var eventsConfig = new HashMap<>(plainConfig);
        eventsConfig.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, SessionPartitioner.class.getName());

        var plain = new ArrayList<Future<RecordMetadata>>();
        var events = new ArrayList<Future<RecordMetadata>>();
        try (var byId = new KafkaProducer<>(plainConfig, new StringSerializer(), new ByteArraySerializer());
                var byKey = new KafkaProducer<>(eventsConfig, new SessionEventKeySerde(), new ByteArraySerializer())) {
            long seq = 1;
            for (String id : ids) {
                plain.add(byId.send(new ProducerRecord<>(plainTopic, id, new byte[] {1})));
                events.add(byKey.send(new ProducerRecord<>(eventsTopic, new SessionEventKey(id, seq++), new byte[] {1})));
            }
        }

        var used = new java.util.HashSet<Integer>();
        for (int i = 0; i < ids.size(); i++) {
            int expected = plain.get(i).get().partition();
            assertThat(events.get(i).get().partition()).as("session %s", ids.get(i)).isEqualTo(expected);
            used.add(expected);
        }
        assertThat(used).as("ids spread over every partition").hasSize(PARTITIONS);
    }
}
