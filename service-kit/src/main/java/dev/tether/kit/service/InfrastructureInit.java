package dev.tether.kit.service;

import dev.tether.kit.kafka.SchemaRegistryInitializer;
import dev.tether.kit.kafka.TopicInitializer;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.TopicMisconfiguredException;
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
 */
@ApplicationScoped
public class InfrastructureInit {

    private static final Logger LOG = Logger.getLogger(InfrastructureInit.class);

    /** What start-up found, for the readiness check. */
    public record Status(List<String> createdTopics, List<String> verifiedTopics, List<String> warnings, List<String> subjects) {}

    private final TetherConfig config;
    private final String bootstrapServers;
    private volatile Status status;

    InfrastructureInit(TetherConfig config, @ConfigProperty(name = "kafka.bootstrap.servers") String bootstrapServers) {
        this.config = config;
        this.bootstrapServers = bootstrapServers;
    }

    void onStart(@Observes StartupEvent event) {
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
        var subjects = new SchemaRegistryInitializer(SchemaRegistryInitializer.ccompatUrlOf(config.registry().url()), timeout)
                .init(layout).stream().map(s -> s.name() + " (" + s.compatibility() + ")").toList();
        status = new Status(report.created(), report.verified(), report.warnings(), subjects);
        LOG.infof("topics ready (created %s, verified %s); schemas registered: %s", report.created(), report.verified(), subjects);
    }

    /** What start-up found; null before it finished. */
    public Status status() {
        return status;
    }

    @Produces
    @Singleton
    TopicLayout layout() {
        return config.layout();
    }
}
