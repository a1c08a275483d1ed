package dev.tether.approval.domain;

import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolMode;
import java.util.Set;

/**
 * Looks at tool calls against the tool registries and the session's workspace, without changing anything. The
 * domain's only port to the world: the service's implementation reads the workspace, tests pass a fake.
 */
public interface CallInspector {

    /** The tools a session in {@code mode} may call. */
    Set<String> tools(ToolMode mode);

    /** What an approver must see of {@code call}, and the path it acts on. Never throws: what cannot be worked out is said in the text. */
    Inspection inspect(String tenantId, String sessionId, ToolMode mode, ToolCall call);
}
