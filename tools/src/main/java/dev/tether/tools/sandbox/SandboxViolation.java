package dev.tether.tools.sandbox;

import java.util.Objects;

/**
 * A path argument refused because it leads, or may lead, outside its workspace. The message names the path as it
 * was given (control characters escaped, long paths shortened) and why it was refused; never the content of a file
 * and never where outside the workspace a link points.
 *
 * <p>Immutable, so thread-safe.
 */
public final class SandboxViolation extends RuntimeException {

    /** Why a path was refused. */
    public enum Reason {
        /** The path is the empty string. */
        EMPTY("it is empty"),
        /** The path is longer than {@link Workspace#MAX_PATH_BYTES}, which no path the kernel resolves can be. */
        TOO_LONG("it is longer than " + Workspace.MAX_PATH_BYTES + " bytes, the longest path there is"),
        /** The path holds a NUL character, which no file name can. */
        NUL_BYTE("it holds a NUL character"),
        /** The path is absolute: paths are relative to the workspace, even one that names a file inside it. */
        ABSOLUTE("it is absolute; give a path relative to the workspace"),
        /** Resolved through {@code ..} or symbolic links, the path leads outside the workspace. */
        OUTSIDE_WORKSPACE("it leads outside the workspace"),
        /** The path names a symbolic link whose target does not exist, so where it leads cannot be checked. */
        DANGLING_LINK("it is a symbolic link to nothing, whose target cannot be checked"),
        /** The path cannot be resolved: a symbolic-link loop, {@code ..} after a missing directory, an I/O error. */
        UNRESOLVABLE("it cannot be resolved");

        private final String explanation;

        Reason(String explanation) {
            this.explanation = explanation;
        }
    }

    private static final int MAX_SHOWN_CHARS = 200;

    private final String path;
    private final Reason reason;

    /**
     * @param path   the path as given, never null
     * @param reason why it is refused, never null
     */
    public SandboxViolation(String path, Reason reason) {
        super("path " + quote(path) + " is refused: " + reason.explanation);
        this.path = Objects.requireNonNull(path, "path");
        this.reason = reason;
    }

    /** The path as it was given. */
    public String path() {
        return path;
    }

    /** Why it was refused. */
    public Reason reason() {
        return reason;
    }

    /** The path in double quotes, with control characters, quotes and backslashes escaped, shortened if long. */
    private static String quote(String path) {
        var quoted = new StringBuilder("\"");
        int shown = Math.min(path.length(), MAX_SHOWN_CHARS);
        for (int i = 0; i < shown; i++) {
            char c = path.charAt(i);
            if (c == '"' || c == '\\') {
                quoted.append('\\').append(c);
            } else if (Character.isISOControl(c)) {
                quoted.append(String.format("\\u%04x", (int) c));
            } else {
                quoted.append(c);
            }
        }
        if (shown < path.length()) {
            quoted.append("…");
        }
        return quoted.append('"').toString();
    }
}
