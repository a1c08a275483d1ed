package dev.tether.kit.service;

import dev.tether.kit.kafka.RegistryUnavailableException;
import dev.tether.kit.kafka.RocksDbOptions;
import dev.tether.kit.kafka.SchemaRegistryInitializer;
import dev.tether.kit.kafka.TopicInitializer;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.TopicMisconfiguredException;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Before a service serves anything, makes sure its topics and schemas are right: creates the
 * missing topics, verifies the existing ones, registers the schemas with their FULL_TRANSITIVE
 * rule. A misconfigured topic stops the start-up with the reason; running on it could lose events.
 *
 * <p>A schema registry that does not answer does not stop the start-up: the service starts, not ready, and registers
 * the schemas as soon as the registry answers (tried every {@link #REGISTRY_RETRY}), so a service started during a
 * registry outage recovers by itself. A registry that answers and refuses a schema still stops it.
 */
@ApplicationScoped
public class InfrastructureInit {

    private static final Logger LOG = Logger.getLogger(InfrastructureInit.class);

    /** What start-up found, for the readiness check. */
    public record Status(List<String> createdTopics, List<String> verifiedTopics, List<String> warnings, List<String> subjects) {}

    /** How often start-up asks a registry that did not answer again. */
    static final Duration REGISTRY_RETRY = Duration.ofSeconds(2);

    private final TetherConfig config;
    private final String bootstrapServers;
    private volatile Status status;
    private volatile String waitingFor = "start-up init has not finished";
    private volatile boolean stopping;

    InfrastructureInit(TetherConfig config, @ConfigProperty(name = "kafka.bootstrap.servers") String bootstrapServers) {
        this.config = config;
        this.bootstrapServers = bootstrapServers;
    }

    void onStart(@Observes StartupEvent event) {
        // read again by every store Kafka Streams opens: a bad value stops the start here, naming it, rather than a store
        RocksDbOptions.memoryBytes(System.getenv(RocksDbOptions.MEMORY_VARIABLE));
        TopicLayout layout = config.layout();
        Duration timeout = config.registry().timeout();
        if (config.topics().init() == TetherConfig.InitMode.NONE) {
            status = new Status(List.of(), List.of(), List.of("topic and schema init disabled (tether.topics.init=none)"), List.of());
            return;
        }
        TopicInitializer.Report report;
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            var topics = new TopicInitializer(admin, timeout);
            report = config.topics().init() == TetherConfig.InitMode.CREATE ? topics.init(layout) : topics.verify(layout);
        } catch (TopicMisconfiguredException e) {
            LOG.error(e.getMessage());
            throw e;
        }
        report.warnings().forEach(LOG::warn);
        if (!registerSchemas(layout, report)) {
            Thread retry = new Thread(() -> {
                while (!stopping && !registerSchemas(layout, report)) {
                    sleep(REGISTRY_RETRY);
                }
            }, "tether-schema-init");
            retry.setDaemon(true);
            retry.start();
        }
    }

    void onStop(@Observes ShutdownEvent event) {
        stopping = true;
    }

    /** Registers the schemas; false (and the reason kept for the readiness check) if the registry does not answer. */
    private boolean registerSchemas(TopicLayout layout, TopicInitializer.Report report) {
        try {
            var subjects = SchemaRegistryInitializer.of(config.registry().settings())
                    .init(layout).stream().map(s -> s.name() + " (" + s.compatibility() + ")").toList();
            status = new Status(report.created(), report.verified(), report.warnings(), subjects);
            LOG.infof("topics ready (created %s, verified %s); schemas registered: %s", report.created(), report.verified(), subjects);
            return true;
        } catch (RegistryUnavailableException e) {
            if (!e.getMessage().equals(waitingFor)) {
                LOG.warnf("%s; the service is not ready until it has registered the schemas (asking again every %s)",
                        e.getMessage(), REGISTRY_RETRY);
            }
            waitingFor = e.getMessage();
            return false;
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** What start-up found; null before it finished. */
    public Status status() {
        return status;
    }

    /** While {@link #status()} is null: what start-up waits for. */
    public String waitingFor() {
        return waitingFor;
    }

    @Produces
    @Singleton
    TopicLayout layout() {
        return config.layout();
    }
}
