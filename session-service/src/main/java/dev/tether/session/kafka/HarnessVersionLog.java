package dev.tether.session.kafka;

import dev.tether.avro.VersionState;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import dev.tether.session.domain.HarnessVersion;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The {@code harness-versions} topic for the session-service: writes an operator's entry, and maps entries between the
 * domain and their Avro form (the only place that does). Thread-safe; closed by its producer ({@link KafkaSetup}).
 */
public final class HarnessVersionLog {

    private final Producer<String, dev.tether.avro.HarnessVersion> producer;
    private final String topic;
    private final Duration timeout;

    HarnessVersionLog(Producer<String, dev.tether.avro.HarnessVersion> producer, TopicLayout layout, Duration timeout) {
        this.producer = producer;
        this.topic = layout.name(Topics.HARNESS_VERSIONS);
        this.timeout = timeout;
    }

    /**
     * Writes {@code entry}, waiting until the broker has it.
     *
     * @return false if the broker did not take it within the timeout (nothing is known to be written: write it again)
     */
    public boolean write(HarnessVersion entry) throws InterruptedException {
        try {
            producer.send(new ProducerRecord<>(topic, entry.key(), toAvro(entry))).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException | TimeoutException e) {
            return false;
        }
    }

    void close() {
        producer.close();
    }

    static dev.tether.avro.HarnessVersion toAvro(HarnessVersion entry) {
        return dev.tether.avro.HarnessVersion.newBuilder()
                .setVersion(entry.version())
                .setWeight(entry.weight())
                .setState(VersionState.valueOf(entry.state().name()))
                .setModelId(entry.modelId())
                .setUpdatedAt(entry.updatedAt())
                .setUpdatedBy(entry.updatedBy())
                .setTenantId(entry.tenantId())
                .build();
    }

    static HarnessVersion fromAvro(dev.tether.avro.HarnessVersion entry) {
        return new HarnessVersion(entry.getVersion(), entry.getWeight(), HarnessVersion.State.valueOf(entry.getState().name()),
                entry.getModelId(), entry.getUpdatedAt(), entry.getUpdatedBy(), entry.getTenantId());
    }
}
