package dev.tether.approval.kafka;

import dev.tether.approval.config.ApprovalConfig;
import dev.tether.approval.config.WorkspaceConfig;
import dev.tether.approval.domain.ApprovalMachine;
import dev.tether.approval.workspace.WorkspaceInspector;
import dev.tether.core.blob.BlobOffloader;
import dev.tether.core.blob.BlobStore;
import dev.tether.core.policy.GatingPolicy;
import dev.tether.kit.kafka.CommandChannel;
import dev.tether.kit.kafka.NominatingBlobStore;
import dev.tether.kit.kafka.StoreFormat;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.service.ServiceKafka;
import dev.tether.kit.service.TetherConfig;
import dev.tether.kit.tracing.KafkaTracing;
import dev.tether.tools.ToolRegistry;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.streams.Topology;
import org.jboss.logging.Logger;

/**
 * The pieces the approval-service is built from: its policy, its view of tools and workspaces, its topology, its channel for
 * decisions. How they reach Kafka and the registry is {@link ServiceKafka}'s.
 */
@ApplicationScoped
public class KafkaSetup {

    private static final Logger LOG = Logger.getLogger(KafkaSetup.class);

    private final TetherConfig config;
    private final ApprovalConfig approvals;
    private final Path workspaceRoot;

    KafkaSetup(TetherConfig config, ApprovalConfig approvals, WorkspaceConfig workspaces) {
        this.config = config;
        this.approvals = approvals;
        this.workspaceRoot = workspaces.root();
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

    /** Every blob put (a shown text) is nominated for deletion, kept while a session refers to it. */
    @Produces
    @Singleton
    BlobStore blobStore(ServiceKafka kafka) {
        return kafka.nominatingBlobStore(approvals.blobsDir(), "tether-approval-service-blobs");
    }

    void closeBlobStore(@Disposes BlobStore blobs) {
        ((NominatingBlobStore) blobs).close();
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
    Topology topology(ServiceKafka kafka, TopicLayout layout, KafkaTracing tracing, GatingPolicy policy, WorkspaceInspector inspector,
                      StoreSignals signals) {
        var settings = new ApprovalTopology.Settings(new ApprovalMachine.Rules(policy, inspector), approvals.timeout(),
                approvals.sweepInterval(), config.stores().writeVersion());
        Topology topology = ApprovalTopology.build(layout, new ApprovalTopology.TopicSerdes(kafka.avroSerde(), kafka.avroSerde()), settings,
                tracing, signals);
        LOG.infof("store formats: %s", StoreFormat.writingAll(ApprovalStoreFormats.all(), settings.writeVersions()));
        return topology;
    }

    /**
     * Approvers' decisions and their verdicts ({@link DecisionGateway}), written reliably, so an acknowledged decision is
     * never lost or doubled; started with the service, so readiness tells when it reads verdicts.
     */
    @Produces
    @Singleton
    @Startup
    CommandChannel decisions(ServiceKafka kafka, KafkaTracing tracing) {
        return kafka.commandChannel("approval-service-decisions", approvals.replyTimeout(), "sending the same decision again is safe", tracing);
    }

    void close(@Disposes CommandChannel channel) {
        channel.close();
    }
}
