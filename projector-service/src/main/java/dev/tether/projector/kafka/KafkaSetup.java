package dev.tether.projector.kafka;

import dev.tether.core.blob.LocalBlobStore;
import dev.tether.kit.kafka.StoreFormat;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.service.ServiceKafka;
import dev.tether.kit.service.TetherConfig;
import dev.tether.kit.tracing.KafkaTracing;
import dev.tether.projector.config.ProjectorConfig;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.streams.Topology;
import org.jboss.logging.Logger;

/** The projector's topology, run by the Quarkus Kafka Streams extension; how it reaches the registry is {@link ServiceKafka}'s. */
@ApplicationScoped
public class KafkaSetup {

    private static final Logger LOG = Logger.getLogger(KafkaSetup.class);

    private final ServiceKafka kafka;
    private final TetherConfig config;
    private final ProjectorConfig projector;

    KafkaSetup(ServiceKafka kafka, TetherConfig config, ProjectorConfig projector) {
        this.kafka = kafka;
        this.config = config;
        this.projector = projector;
    }

    @Produces
    @Singleton
    Topology topology(TopicLayout layout, KafkaTracing tracing, StoreSignals signals, MeterRegistry meters) {
        Map<String, Integer> writeVersions = config.stores().writeVersion();
        ProjectorConfig.Blobs blobs = projector.blobs();
        Counter deleted = Counter.builder("tether.blobs.deleted").description("blobs no session referred to any more, deleted")
                .register(meters);
        BlobSweeper.Sweeping sweeping = blobs.sweep()
                ? new BlobSweeper.Sweeping(new LocalBlobStore(Path.of(blobs.dir())), blobs.grace(), blobs.sweepEvery(), deleted::increment)
                : null;
        Topology topology = ProjectorTopology.build(layout, layout, new ProjectorTopology.TopicSerdes(kafka.avroSerde(), kafka.avroSerde(),
                kafka.avroSerde(), kafka.avroSerde(), kafka.avroSerde()), writeVersions, tracing, signals, sweeping);
        LOG.infof("store formats: %s", StoreFormat.writingAll(ProjectorStoreFormats.all(), writeVersions));
        LOG.infof(sweeping == null ? "blobs no session refers to any more are kept (tether.projector.blobs.sweep=false)"
                : "blobs no session refers to any more are deleted from %s once last put over %s ago", blobs.dir(), blobs.grace());
        return topology;
    }
}
