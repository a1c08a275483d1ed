package dev.tether.kit.service;

import dev.tether.avro.CommandReply;
import dev.tether.avro.SessionCommand;
import dev.tether.kit.kafka.AvroSerdes;
import dev.tether.core.blob.LocalBlobStore;
import dev.tether.kit.kafka.CommandChannel;
import dev.tether.kit.kafka.NominatingBlobStore;
import dev.tether.kit.kafka.ProducerSettings;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import dev.tether.kit.tracing.KafkaTracing;
import io.opentelemetry.api.OpenTelemetry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * How a service reaches Kafka and the registry, the same way in every service: the brokers
 * ({@code kafka.bootstrap.servers}), the topic layout, Avro value serdes through the registry (with deadlines), reliable producers,
 * the request/reply channel to the sequencer, and the trace propagation ({@link KafkaTracing}, named after
 * {@code quarkus.application.name}). A service's own {@code KafkaSetup} keeps only what is its own: its topology, its
 * producers' client ids, its timeouts. Thread-safe.
 */
@ApplicationScoped
public class ServiceKafka {

    private final TetherConfig config;
    private final RegistryAccess registry;
    private final String bootstrapServers;
    private final String applicationName;

    ServiceKafka(TetherConfig config, RegistryAccess registry, @ConfigProperty(name = "kafka.bootstrap.servers") String bootstrapServers,
                 @ConfigProperty(name = "quarkus.application.name") String applicationName) {
        this.config = config;
        this.registry = registry;
        this.bootstrapServers = bootstrapServers;
        this.applicationName = applicationName;
    }

    @Produces
    @Singleton
    KafkaTracing tracing(OpenTelemetry openTelemetry) {
        return new KafkaTracing(openTelemetry, "tether-" + applicationName);
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    public TopicLayout layout() {
        return config.layout();
    }

    /**
     * A value serde for a generated Avro class, through the service's one connection to the registry
     * ({@link RegistryAccess}: every call with the {@code tether.registry.*} deadlines; see {@link AvroSerdes}).
     */
    public <T extends SpecificRecord> Serde<T> avroSerde() {
        return AvroSerdes.valueSerde(registry.connection());
    }

    /**
     * A producer of Avro values with sessionId (string) keys: reliable ({@link ProducerSettings#reliable}), batching
     * for 1 ms, so a record the broker acknowledged is never lost or doubled. The caller closes it.
     */
    public <V extends SpecificRecord> Producer<String, V> reliableProducer(String clientId) {
        return reliableProducer(clientId, this.<V>avroSerde().serializer());
    }

    private <V> Producer<String, V> reliableProducer(String clientId, Serializer<V> values) {
        return new KafkaProducer<>(ProducerSettings.reliable(bootstrapServers, clientId).lingerMs(1).toMap(), new StringSerializer(), values);
    }

    /**
     * The blob store in {@code dir} that nominates each blob it puts for deletion unless a session comes to refer to it
     * ({@link NominatingBlobStore}), through a reliable producer {@code clientId}. The caller closes it.
     */
    public NominatingBlobStore nominatingBlobStore(Path dir, String clientId) {
        return new NominatingBlobStore(new LocalBlobStore(dir), reliableProducer(clientId, new ByteArraySerializer()),
                layout().name(Topics.BLOB_REFERENCES));
    }

    /**
     * A request/reply channel to the sequencer, started: it writes with a reliable producer {@code clientId} and is
     * addressed, on the reply topic, by this service's name and a new random id. The caller closes it.
     *
     * @param timeout     see {@link CommandChannel.Settings#timeout}
     * @param retryAdvice see {@link CommandChannel.Settings#retryAdvice}
     */
    public CommandChannel commandChannel(String clientId, Duration timeout, String retryAdvice, KafkaTracing tracing) {
        String replyTo = applicationName + "-" + UUID.randomUUID();
        Producer<String, byte[]> producer = reliableProducer(clientId, new ByteArraySerializer()); // the channel encodes
        var replies = new KafkaConsumer<>(CommandChannel.consumerConfig(bootstrapServers, replyTo + "-replies"), new StringDeserializer(),
                this.<CommandReply>avroSerde().deserializer());
        return CommandChannel.open(producer, this.<SessionCommand>avroSerde().serializer(), replies, layout(), tracing,
                new CommandChannel.Settings(replyTo, timeout, retryAdvice));
    }
}
