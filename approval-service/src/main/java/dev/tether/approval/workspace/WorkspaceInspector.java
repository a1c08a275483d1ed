package dev.tether.approval.workspace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.approval.domain.CallInspector;
import dev.tether.approval.domain.CallTarget;
import dev.tether.approval.domain.Inspection;
import dev.tether.core.blob.BlobOffloader;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolMode;
import dev.tether.tools.Tool;
import dev.tether.tools.ToolException;
import dev.tether.tools.ToolRegistry;
import dev.tether.tools.sandbox.SandboxUser;
import dev.tether.tools.sandbox.SandboxViolation;
import dev.tether.tools.sandbox.Workspace;
import dev.tether.tools.sandbox.WorkspaceRoot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * The approval-service's view of tool calls, with the executor's own tool code: which tools a session's mode has
 * ({@link ToolRegistry}), and what a call will do, worked out by {@link Tool#shown} against the session's workspace
 * where the executor keeps it ({@link WorkspaceRoot#existing}: the executor's own layout) without changing anything.
 *
 * <p>The workspace is only read: in a deployment the approval-service mounts the workspace volume read-only. A
 * session whose workspace does not exist yet (nothing ran in it so far) is previewed against an empty directory of
 * the service's own, which is what the executor will start from; nothing is ever created under the root. One that is
 * there but cannot be read is not: its calls are shown as written, saying so, and their paths lead nowhere a session
 * grant's path glob covers.
 *
 * <p>What {@link Tool#shown} cannot preview (invalid arguments, a path leading out of the workspace) is shown as the
 * call as written, with the reason: the approver still decides, and the executor refuses the call if it is invalid.
 * Text larger than the offloader's threshold goes to the blob store; the event carries its preview and reference.
 *
 * <p>Thread-safe: the tools and the registry are.
 */
public final class WorkspaceInspector implements CallInspector {

    private static final Logger LOG = Logger.getLogger(WorkspaceInspector.class);

    private final ToolRegistry registry;
    private final Path root;
    private final Workspace empty;
    private final BlobOffloader offloader;
    private final ObjectMapper json = new ObjectMapper();

    /**
     * @param registry  the tools by mode: {@link ToolRegistry#builtIn}, the executor's
     * @param root      the workspace root, laid out by the executor's {@link WorkspaceRoot}; may not exist
     * @param scratch   a directory of this service's own, where an empty workspace is kept for previews
     * @param offloader where shown text too large for an event goes
     */
    public WorkspaceInspector(ToolRegistry registry, Path root, Path scratch, BlobOffloader offloader) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.root = Objects.requireNonNull(root, "root");
        this.offloader = Objects.requireNonNull(offloader, "offloader");
        try {
            Files.createDirectories(scratch);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + scratch, e);
        }
        this.empty = new WorkspaceRoot(scratch, SandboxUser.current()).open("empty");
    }

    @Override
    public Set<String> tools(ToolMode mode) {
        return registry.forMode(mode).names();
    }

    @Override
    public Inspection inspect(String tenantId, String sessionId, ToolMode mode, ToolCall call) {
        Tool tool = registry.forMode(mode).find(call.tool()).orElse(null);
        JsonNode arguments;
        try {
            arguments = json.readTree(call.argumentsJson());
        } catch (IOException e) {
            arguments = null;
        }
        if (tool == null || arguments == null || !arguments.isObject()) {
            String why = tool == null ? "the tool is not available in a " + mode + " session" : "the arguments are not a JSON object";
            return inspection(tenantId, asWritten(call, why), CallTarget.NONE, false);
        }
        Workspace workspace = workspace(tenantId, sessionId);
        if (workspace == null) {
            return inspection(tenantId, asWritten(call, "the session's workspace cannot be read"), target(null, arguments), false);
        }
        String shown;
        boolean previewed = false;
        try {
            shown = tool.shown(workspace, arguments);
            previewed = shown != null;
        } catch (ToolException | SandboxViolation e) {
            shown = asWritten(call, e.getMessage());
        } catch (RuntimeException e) {
            LOG.warnf(e, "no preview of %s call %s of %s", call.tool(), call.callId(), sessionId);
            shown = asWritten(call, "the preview failed");
        }
        if (shown == null) {
            shown = asWritten(call, "the tool answered no preview");
        }
        return inspection(tenantId, shown, target(workspace, arguments), previewed);
    }

    /** @param previewed whether {@code shown} is the tool's own preview, which the executor works out again before the call starts */
    private Inspection inspection(String tenantId, String shown, CallTarget target, boolean previewed) {
        BlobOffloader.Offloaded offloaded = offloader.offload(tenantId, shown);
        return new Inspection(offloaded.text(), offloaded.ref(), target, previewed ? Tool.shownSha256(shown) : null);
    }

    /**
     * The tenant's session's workspace if it exists, read as it is; the empty one if there is none (also when another
     * tenant's erased session left it); null if it is there but cannot be read: what its files hold and where its links
     * lead are not known, so nothing is previewed against an empty one in its place.
     */
    private Workspace workspace(String tenantId, String sessionId) {
        try {
            return WorkspaceRoot.existing(root, tenantId, sessionId, SandboxUser.current()).orElse(empty);
        } catch (RuntimeException e) {
            LOG.warnf("cannot read the workspace of %s (%s); its calls are shown as written", sessionId, e.getMessage());
            return null;
        }
    }

    /**
     * The call's {@code path} argument and where it leads in the workspace, for scope matching; nowhere known (no real
     * path, which no path glob covers) in a workspace that cannot be read ({@code workspace} null).
     */
    private static CallTarget target(Workspace workspace, JsonNode arguments) {
        JsonNode path = arguments.get("path");
        if (path == null || !path.isTextual()) {
            return CallTarget.NONE;
        }
        return new CallTarget(path.asText(), workspace == null ? null : workspace.leadsTo(path.asText()).orElse(null));
    }

    private static String asWritten(ToolCall call, String why) {
        return call.tool() + " " + call.argumentsJson() + "\n(no preview: " + why + ")";
    }
}
