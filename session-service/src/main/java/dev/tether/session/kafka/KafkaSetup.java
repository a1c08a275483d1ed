package dev.tether.session.kafka;

import dev.tether.avro.Checkpoint;
import dev.tether.avro.CommandReply;
import dev.tether.avro.HarnessVersion;
import dev.tether.avro.SessionCommand;
import dev.tether.kit.kafka.AvroSerdes;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.service.TetherConfig;
import dev.tether.kit.tracing.KafkaTracing;
import io.opentelemetry.api.OpenTelemetry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.Topology;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** The Kafka pieces the session-service is built from: its topology, its producers, its serdes. */
@ApplicationScoped
public class KafkaSetup {

    private final TetherConfig config;
    private final String bootstrapServers;

    KafkaSetup(TetherConfig config, @ConfigProperty(name = "kafka.bootstrap.servers") String bootstrapServers) {
        this.config = config;
        this.bootstrapServers = bootstrapServers;
    }

    @Produces
    @Singleton
    KafkaTracing tracing(OpenTelemetry openTelemetry) {
        return new KafkaTracing(openTelemetry, "tether-session-service");
    }

    /** Picked up by the Quarkus Kafka Streams extension, which runs it. */
    @Produces
    @Singleton
    Topology topology(TopicLayout layout, KafkaTracing tracing, StoreSignals signals) {
        return SequencerTopology.build(layout, new SequencerTopology.TopicSerdes(serde(), serde(), serde(), this.<Checkpoint>serde(),
                this.<HarnessVersion>serde()), tracing, signals);
    }

    /** Writes commands: idempotent, acks=all, so a command the broker acknowledged is never lost or doubled. */
    @Produces
    @ApplicationScoped
    Producer<String, SessionCommand> commandProducer() {
        return new KafkaProducer<>(reliableProducerConfig("session-service-commands"), new StringSerializer(),
                this.<SessionCommand>serde().serializer());
    }

    void close(@Disposes Producer<String, SessionCommand> producer) {
        producer.close();
    }

    @Produces
    @ApplicationScoped
    Producer<String, HarnessVersion> versionProducer() {
        return new KafkaProducer<>(reliableProducerConfig("session-service-versions"), new StringSerializer(),
                this.<HarnessVersion>serde().serializer());
    }

    void closeVersions(@Disposes Producer<String, HarnessVersion> producer) {
        producer.close();
    }

    /** The reply topic's value serde, for {@link ReplyListener}. */
    Serde<CommandReply> replySerde() {
        return serde();
    }

    String bootstrapServers() {
        return bootstrapServers;
    }

    TopicLayout layout() {
        return config.layout();
    }

    private Map<String, Object> reliableProducerConfig(String clientId) {
        var props = new HashMap<String, Object>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 1);
        return props;
    }

    private <T extends org.apache.avro.specific.SpecificRecord> Serde<T> serde() {
        return AvroSerdes.valueSerde(config.registry().url());
    }
}
