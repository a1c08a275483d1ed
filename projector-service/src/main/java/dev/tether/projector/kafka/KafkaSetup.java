package dev.tether.projector.kafka;

import dev.tether.kit.kafka.StoreFormat;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.service.ServiceKafka;
import dev.tether.kit.service.TetherConfig;
import dev.tether.kit.tracing.KafkaTracing;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.Map;
import org.apache.kafka.streams.Topology;
import org.jboss.logging.Logger;

/** The projector's topology, run by the Quarkus Kafka Streams extension; how it reaches the registry is {@link ServiceKafka}'s. */
@ApplicationScoped
public class KafkaSetup {

    private static final Logger LOG = Logger.getLogger(KafkaSetup.class);

    private final ServiceKafka kafka;
    private final TetherConfig config;

    KafkaSetup(ServiceKafka kafka, TetherConfig config) {
        this.kafka = kafka;
        this.config = config;
    }

    @Produces
    @Singleton
    Topology topology(TopicLayout layout, KafkaTracing tracing, StoreSignals signals) {
        Map<String, Integer> writeVersions = config.stores().writeVersion();
        Topology topology = ProjectorTopology.build(layout, layout, new ProjectorTopology.TopicSerdes(kafka.avroSerde(), kafka.avroSerde(),
                kafka.avroSerde(), kafka.avroSerde()), writeVersions, tracing, signals);
        LOG.infof("store formats: %s", StoreFormat.writingAll(ProjectorStoreFormats.all(), writeVersions));
        return topology;
    }
}
