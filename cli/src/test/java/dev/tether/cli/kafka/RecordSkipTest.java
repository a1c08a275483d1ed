package dev.tether.cli.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.cli.CliException;
import dev.tether.cli.FakeServices;
import dev.tether.kit.kafka.TopicLayout;
import java.time.Duration;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code topics skip-record}'s judgement of a record, against a fake registry. */
class RecordSkipTest {

    private final FakeServices registry = new FakeServices();
    private final KafkaSettings kafka = new KafkaSettings("127.0.0.1:9", registry.url() + "/apis/registry/v3",
            new TopicLayout("staging.", 3, (short) 1), Duration.ofSeconds(5));

    @AfterEach
    void stop() {
        registry.close();
    }

    @Test
    void aKafkaThatDoesNotAnswer_isSaidSo_notTakenForARefusal() {
        var nowhere = new KafkaSettings("127.0.0.1:9", registry.url() + "/apis/registry/v3", new TopicLayout("staging.", 3, (short) 1),
                Duration.ofMillis(300));

        assertThatThrownBy(() -> new RecordSkip(nowhere).skip("session-service", "session-commands", 0, 41)).isInstanceOf(CliException.class)
                .hasMessage("Kafka at 127.0.0.1:9 did not answer within 300 ms (see --bootstrap and --timeout)");
    }

    /** A record as the services write it: magic byte 0, a content id, Avro binary. */
    private static ConsumerRecord<byte[], byte[]> record() {
        return new ConsumerRecord<>("staging.session-commands", 0, 41, "s-1".getBytes(), new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 7, 2, 4});
    }

    @Test
    void aRegistryThatDoesNotKnowTheTopic_isNotTheServicesOne_soTheRecordIsNotJudgedUnreadable() {
        // every request answered 404, as a wrong --registry-url (another service, the v2 API) answers: a good record must not be skipped
        assertThatThrownBy(() -> new RecordSkip(kafka).unreadable(record())).isInstanceOf(CliException.class)
                .hasMessageContaining("registry");
    }

    @Test
    void aRecordWhoseSchemaIdTheServicesRegistryDoesNotHave_isUnreadable() {
        registry.on("POST /apis/ccompat/v7/subjects/staging.session-commands-value", 200,
                "{\"subject\":\"staging.session-commands-value\",\"id\":1,\"version\":1}");
        registry.on("GET /apis/ccompat/v7/config/staging.session-commands-value", 200, "{\"compatibilityLevel\":\"FULL_TRANSITIVE\"}");
        // the content id's lookup is answered 404 (the fake's default), as the registry answers an id it does not have

        assertThat(new RecordSkip(kafka).unreadable(record())).isNotBlank();
    }
}
