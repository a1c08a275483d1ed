package dev.tether.session.kafka;

import dev.tether.avro.Checkpoint;
import dev.tether.avro.HarnessVersion;
import dev.tether.kit.kafka.CommandChannel;
import dev.tether.kit.kafka.StoreFormat;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.service.ServiceKafka;
import dev.tether.kit.service.TetherConfig;
import dev.tether.kit.tracing.KafkaTracing;
import dev.tether.session.config.SessionServiceConfig;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.streams.Topology;
import org.jboss.logging.Logger;

/**
 * The Kafka pieces that are the session-service's own: its topology, its request/reply channel to the sequencer, its
 * producer of harness versions. How they reach Kafka and the registry is {@link ServiceKafka}'s.
 */
@ApplicationScoped
public class KafkaSetup {

    /** How long an operator's harness-version change may take to be acknowledged before the answer is 503. */
    private static final Duration VERSION_WRITE_TIMEOUT = Duration.ofSeconds(10);

    private static final Logger LOG = Logger.getLogger(KafkaSetup.class);

    private final ServiceKafka kafka;
    private final SessionServiceConfig sessions;
    private final TetherConfig config;

    KafkaSetup(ServiceKafka kafka, SessionServiceConfig sessions, TetherConfig config) {
        this.kafka = kafka;
        this.sessions = sessions;
        this.config = config;
    }

    /** Picked up by the Quarkus Kafka Streams extension, which runs it. */
    @Produces
    @Singleton
    Topology topology(TopicLayout layout, KafkaTracing tracing, StoreSignals signals) {
        Map<String, Integer> writeVersions = config.stores().writeVersion();
        Topology topology = SequencerTopology.build(layout, new SequencerTopology.TopicSerdes(kafka.avroSerde(), kafka.avroSerde(),
                kafka.avroSerde(), kafka.<Checkpoint>avroSerde(), kafka.<HarnessVersion>avroSerde()), writeVersions, tracing, signals);
        LOG.infof("store formats: %s", StoreFormat.writingAll(SequencerStoreFormats.all(), writeVersions));
        return topology;
    }

    /** Commands and their verdicts ({@link CommandGateway}); started with the service, so readiness tells when it reads. */
    @Produces
    @Singleton
    @Startup
    CommandChannel commands(KafkaTracing tracing) {
        return kafka.commandChannel("session-service-commands", sessions.replyTimeout(), "retrying with the same eventIds is safe", tracing);
    }

    void close(@Disposes CommandChannel channel) {
        channel.close();
    }

    @Produces
    @ApplicationScoped
    HarnessVersionLog versionLog(TopicLayout layout) {
        return new HarnessVersionLog(kafka.<HarnessVersion>reliableProducer("session-service-versions"), layout, VERSION_WRITE_TIMEOUT);
    }

    void closeVersions(@Disposes HarnessVersionLog log) {
        log.close();
    }
}
