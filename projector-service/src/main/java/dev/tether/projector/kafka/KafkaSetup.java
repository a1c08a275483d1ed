package dev.tether.projector.kafka;

import dev.tether.core.blob.LocalBlobStore;
import dev.tether.kit.kafka.StoreFormat;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import dev.tether.kit.service.ServiceKafka;
import dev.tether.kit.service.TetherConfig;
import dev.tether.kit.tracing.KafkaTracing;
import dev.tether.projector.config.ProjectorConfig;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.TaskId;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The projector's topology, run by the Quarkus Kafka Streams extension, and its blob sweeper's horizon and metrics; how it
 * reaches the registry is {@link ServiceKafka}'s.
 */
@ApplicationScoped
public class KafkaSetup {

    private static final Logger LOG = Logger.getLogger(KafkaSetup.class);

    private final ServiceKafka kafka;
    private final TetherConfig config;
    private final ProjectorConfig projector;
    private final String applicationId;
    /** The admin client and thread that move the blob sweeper's horizon on; null while no horizon runs. */
    private Admin horizonAdmin;
    private ScheduledExecutorService horizonThread;

    KafkaSetup(ServiceKafka kafka, TetherConfig config, ProjectorConfig projector,
               @ConfigProperty(name = "quarkus.kafka-streams.application-id") String applicationId) {
        this.kafka = kafka;
        this.config = config;
        this.projector = projector;
        this.applicationId = applicationId;
    }

    @Produces
    @Singleton
    Topology topology(TopicLayout layout, KafkaTracing tracing, StoreSignals signals, MeterRegistry meters) {
        Map<String, Integer> writeVersions = config.stores().writeVersion();
        ProjectorConfig.Blobs blobs = projector.blobs();
        BlobSweeper.Sweeping sweeping = null;
        if (blobs.sweep()) {
            ReferenceHorizon horizon = startHorizon(layout, blobs);
            Gauge.builder("tether.blobs.horizon.behind", horizon, h -> h.secondsBehind(Instant.now())).baseUnit("seconds")
                    .description("how long ago the time is before which every blob reference has reached the blob sweeper")
                    .strongReference(true).register(meters);
            sweeping = new BlobSweeper.Sweeping(new LocalBlobStore(Path.of(blobs.dir())), blobs.grace(), blobs.sweepEvery(),
                    new SweepMetrics(meters), horizon::horizon);
        }
        Topology topology = ProjectorTopology.build(layout, layout, new ProjectorTopology.TopicSerdes(kafka.avroSerde(), kafka.avroSerde(),
                kafka.avroSerde(), kafka.avroSerde(), kafka.avroSerde()), writeVersions, tracing, signals, sweeping);
        LOG.infof("store formats: %s", StoreFormat.writingAll(ProjectorStoreFormats.all(), writeVersions));
        LOG.infof(sweeping == null ? "blobs no session refers to any more are kept (tether.projector.blobs.sweep=false)"
                : "blobs no session refers to any more are deleted from %s once last put over %s before the horizon of their references",
                blobs.dir(), blobs.grace());
        return topology;
    }

    /**
     * The horizon of what can refer to a blob: the sequencer's group on {@code session-commands}, then this projector's
     * on {@code session-events} and {@code tool-outcomes}, then on {@code blob-references} (its sweeper), moved on
     * every {@code sweep-every} on a thread of its own, since it waits on the broker.
     */
    private ReferenceHorizon startHorizon(TopicLayout layout, ProjectorConfig.Blobs blobs) {
        horizonAdmin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                AdminClientConfig.CLIENT_ID_CONFIG, applicationId + "-blob-horizon"));
        var horizon = new ReferenceHorizon(ReferenceHorizon.Offsets.of(horizonAdmin, Duration.ofSeconds(30)), List.of(
                new ReferenceHorizon.Stage(blobs.sequencerGroup(), List.of(layout.name(Topics.SESSION_COMMANDS))),
                new ReferenceHorizon.Stage(applicationId, List.of(layout.name(Topics.SESSION_EVENTS), layout.name(Topics.TOOL_OUTCOMES))),
                new ReferenceHorizon.Stage(applicationId, List.of(layout.name(Topics.BLOB_REFERENCES)))));
        horizonThread = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "blob-horizon");
            thread.setDaemon(true);
            return thread;
        });
        Duration patience = blobs.sweepEvery().multipliedBy(10);
        horizonThread.scheduleWithFixedDelay(() -> horizon.tick(Instant.now(), patience), 0, blobs.sweepEvery().toMillis(),
                TimeUnit.MILLISECONDS);
        return horizon;
    }

    /**
     * {@code tether_blobs_deleted_total}, and {@code tether_blobs_unreferenced}: the blobs no session refers to that
     * wait (for the grace and the horizon) in this instance's partitions, as of each partition's last sweep.
     */
    private static final class SweepMetrics implements BlobSweeper.Tally {

        private final Counter deleted;
        private final Map<TaskId, Integer> waiting = new ConcurrentHashMap<>();

        SweepMetrics(MeterRegistry meters) {
            deleted = Counter.builder("tether.blobs.deleted").description("blobs no session referred to any more, deleted").register(meters);
            Gauge.builder("tether.blobs.unreferenced", waiting, w -> w.values().stream().mapToInt(Integer::intValue).sum())
                    .description("blobs no session refers to, waiting to be deleted, as of the last sweep of each of this instance's partitions")
                    .strongReference(true).register(meters);
        }

        @Override
        public void deleted(int blobs) {
            deleted.increment(blobs);
        }

        @Override
        public void waiting(TaskId task, int blobs) {
            waiting.put(task, blobs);
        }
    }

    @PreDestroy
    void close() {
        if (horizonThread != null) {
            horizonThread.shutdownNow();
            horizonAdmin.close(Duration.ofSeconds(5));
        }
    }
}
