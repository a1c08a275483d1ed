package dev.tether.approval.kafka;

import dev.tether.approval.config.ApprovalConfig;
import dev.tether.approval.config.WorkspaceConfig;
import dev.tether.approval.domain.ApprovalMachine;
import dev.tether.approval.workspace.WorkspaceInspector;
import dev.tether.avro.CommandReply;
import dev.tether.avro.SessionCommand;
import dev.tether.core.blob.BlobOffloader;
import dev.tether.core.blob.BlobStore;
import dev.tether.core.blob.LocalBlobStore;
import dev.tether.core.policy.GatingPolicy;
import dev.tether.kit.kafka.AvroSerdes;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.service.TetherConfig;
import dev.tether.kit.tracing.KafkaTracing;
import dev.tether.tools.ToolRegistry;
import io.opentelemetry.api.OpenTelemetry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.Topology;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** The pieces the approval-service is built from: its policy, its view of tools and workspaces, its topology, its producer. */
@ApplicationScoped
public class KafkaSetup {

    private final TetherConfig config;
    private final ApprovalConfig approvals;
    private final String bootstrapServers;
    private final Path workspaceRoot;

    KafkaSetup(TetherConfig config, ApprovalConfig approvals, WorkspaceConfig workspaces,
               @ConfigProperty(name = "kafka.bootstrap.servers") String bootstrapServers) {
        this.config = config;
        this.approvals = approvals;
        this.bootstrapServers = bootstrapServers;
        this.workspaceRoot = workspaces.root();
    }

    @Produces
    @Singleton
    KafkaTracing tracing(OpenTelemetry openTelemetry) {
        return new KafkaTracing(openTelemetry, "tether-approval-service");
    }

    /**
     * The tools sessions can call: {@link ToolRegistry#builtIn}, the registry the executor runs them with.
     * {@code http_fetch} previews check the executor's host allowlist ({@link ApprovalConfig#httpAllowedHosts}), so the
     * approver is told when a URL would be refused.
     */
    @Produces
    @Singleton
    ToolRegistry tools() {
        return ToolRegistry.builtIn(approvals.httpAllowedHosts().orElse(List.of()));
    }

    /**
     * The gating policy, checked at start-up (the topology needs it): a malformed entry, or a tool name that is none of
     * {@code tools} (a misspelling would leave the real tool ungated), stops the service with a message naming it.
     */
    @Produces
    @Singleton
    GatingPolicy policy(ToolRegistry tools) {
        return config.gatingPolicy(tools.names());
    }

    @Produces
    @Singleton
    BlobStore blobStore() {
        return new LocalBlobStore(approvals.blobsDir());
    }

    /** The tools' own previews ({@code Tool.shown}) against the read-only workspaces. */
    @Produces
    @Singleton
    WorkspaceInspector inspector(ToolRegistry tools, BlobStore blobs) {
        return new WorkspaceInspector(tools, workspaceRoot, approvals.scratchDir(), new BlobOffloader(blobs));
    }

    /** Picked up by the Quarkus Kafka Streams extension, which runs it. */
    @Produces
    @Singleton
    Topology topology(TopicLayout layout, KafkaTracing tracing, GatingPolicy policy, WorkspaceInspector inspector, StoreSignals signals) {
        var settings = new ApprovalTopology.Settings(new ApprovalMachine.Rules(policy, inspector), approvals.timeout(),
                approvals.sweepInterval());
        return ApprovalTopology.build(layout, new ApprovalTopology.TopicSerdes(serde(), serde()), settings, tracing, signals);
    }

    /** Writes approvers' decisions: idempotent, acks=all, so an acknowledged decision is never lost or doubled. */
    @Produces
    @ApplicationScoped
    Producer<String, SessionCommand> commandProducer() {
        var props = new HashMap<String, Object>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "approval-service-decisions");
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 1);
        return new KafkaProducer<>(props, new StringSerializer(), this.<SessionCommand>serde().serializer());
    }

    void close(@Disposes Producer<String, SessionCommand> producer) {
        producer.close();
    }

    Serde<CommandReply> replySerde() {
        return serde();
    }

    String bootstrapServers() {
        return bootstrapServers;
    }

    TopicLayout layout() {
        return config.layout();
    }

    private <T extends SpecificRecord> Serde<T> serde() {
        return AvroSerdes.valueSerde(config.registry().url());
    }
}
