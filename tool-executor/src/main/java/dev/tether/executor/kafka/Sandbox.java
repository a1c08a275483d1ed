package dev.tether.executor.kafka;

import dev.tether.core.blob.BlobOffloader;
import dev.tether.tools.CancellationToken;
import dev.tether.tools.ToolContext;
import dev.tether.tools.sandbox.CommandRunner;
import dev.tether.tools.sandbox.OutputRedactor;
import dev.tether.tools.sandbox.SecretProvider;
import dev.tether.tools.sandbox.Workspace;
import dev.tether.tools.sandbox.WorkspaceRoot;
import java.time.Instant;

/**
 * What tool calls run with: the sessions' workspaces, the command runner, the secrets and the blob store for large
 * output. Makes one {@link ToolContext} per call. Thread-safe.
 */
final class Sandbox {

    private final WorkspaceRoot workspaces;
    private final CommandRunner runner;
    private final SecretProvider secrets;
    private final BlobOffloader offloader;

    Sandbox(WorkspaceRoot workspaces, CommandRunner runner, SecretProvider secrets, BlobOffloader offloader) {
        this.workspaces = workspaces;
        this.runner = runner;
        this.secrets = secrets;
        this.offloader = offloader;
    }

    /**
     * The workspace of the tenant's session, made if it does not exist yet; what another tenant's erased session left
     * under the id is cleared first ({@link WorkspaceRoot#open(String, String)}).
     */
    Workspace workspace(String tenantId, String sessionId) {
        return workspaces.open(tenantId, sessionId);
    }

    /** The session was erased at {@code erasedAt}: its workspace goes with it (a later session's under its id stays). */
    void erase(String sessionId, Instant erasedAt) {
        workspaces.erase(sessionId, erasedAt);
    }

    /** The context of one call in {@code workspace}, with a redactor of its own. */
    ToolContext context(Workspace workspace, String tenantId, String idempotencyKey, CancellationToken cancellation) {
        return new ToolContext(workspace, runner, newRedactor(), secrets, offloader, tenantId, idempotencyKey,
                cancellation);
    }

    /**
     * A redactor for one call that already knows every secret the provider can list, so that a secret that reached the
     * workspace is redacted from any tool's output, not only from the call that resolved it.
     */
    private OutputRedactor newRedactor() {
        var redactor = new OutputRedactor();
        secrets.listable().forEach(redactor::registerSecret);
        return redactor;
    }
}
