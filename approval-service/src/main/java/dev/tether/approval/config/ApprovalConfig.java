package dev.tether.approval.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The approval-service's own settings ({@code tether.approvals.*}). Which tools are gated is the shared
 * {@code tether.policy.*} ({@link dev.tether.core.policy.GatingPolicy}); where the workspaces are is the shared
 * {@code tether.workspace.root}.
 */
@ConfigMapping(prefix = "tether.approvals")
public interface ApprovalConfig {

    /** How long an approval waits for a human before the service denies it in its own name (EXPIRED). */
    @WithDefault("PT24H")
    Duration timeout();

    /** How often expired approvals are looked for. */
    @WithDefault("PT5S")
    Duration sweepInterval();

    /** How long a decision waits for the sequencer's verdict before answering 503. */
    @WithDefault("PT15S")
    Duration replyTimeout();

    /** Where text too large for an event (a long diff) is stored: the blob store the session-service serves. */
    Path blobsDir();

    /** A directory of the service's own (an empty workspace to preview calls of sessions that have none yet). */
    Path scratchDir();

    /**
     * The hosts {@code http_fetch} may reach, as the executor is configured (so previews refuse what it refuses);
     * by default the executor's own variable, {@code TETHER_EXECUTOR_HTTP_ALLOWED_HOSTS}. None when unset.
     */
    Optional<List<String>> httpAllowedHosts();
}
