package dev.tether.approval.config;

import io.smallrye.config.ConfigMapping;
import java.nio.file.Path;

/**
 * Where the sessions' workspaces are: {@code tether.workspace.root} (env {@code TETHER_WORKSPACE_ROOT}), one directory
 * per session at {@code <root>/<sessionId>}, the layout the tool-executor writes. The approval-service only reads
 * it; in a deployment it mounts the workspace volume read-only.
 */
@ConfigMapping(prefix = "tether.workspace")
public interface WorkspaceConfig {

    Path root();
}
