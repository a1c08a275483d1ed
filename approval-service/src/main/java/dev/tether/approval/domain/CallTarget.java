package dev.tether.approval.domain;

/**
 * The workspace path a tool call acts on, for matching it against a session-scope grant's path glob.
 *
 * @param path     the call's {@code path} argument as the model wrote it; null if the call has none
 * @param realPath where that path leads in the session's workspace, through symbolic links, relative to the
 *                 workspace; null if it leads nowhere inside it (or the call has no path)
 */
public record CallTarget(String path, String realPath) {

    /** A call without a path argument: a grant with a path glob never covers it. */
    public static final CallTarget NONE = new CallTarget(null, null);
}
