package dev.tether.tools;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.util.Objects;

/**
 * A call that could not run: its arguments were invalid or refused, or the tool could not do its work. Nothing was
 * changed, except where {@link Kind#FAILED} says otherwise. The message is for the model: it names the argument at
 * fault and holds neither secrets nor file content.
 *
 * <p>Immutable.
 */
public final class ToolException extends Exception {

    /** What went wrong. */
    public enum Kind {
        /** An argument is missing, of the wrong type or invalid; the message names it. */
        INVALID_ARGUMENT,
        /** The arguments are valid but not allowed: a path outside the workspace, a host not on the allowlist. */
        REFUSED,
        /** The tool could not do its work: an I/O error, a timeout. */
        FAILED
    }

    private final Kind kind;

    private ToolException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = Objects.requireNonNull(kind, "kind");
    }

    /** Argument {@code argument} is invalid: {@code problem}. */
    public static ToolException invalidArgument(String argument, String problem) {
        return new ToolException(Kind.INVALID_ARGUMENT, "argument " + argument + ": " + problem, null);
    }

    /** Argument {@code argument} is refused: {@code reason}. */
    public static ToolException refused(String argument, String reason) {
        return new ToolException(Kind.REFUSED, "argument " + argument + ": " + reason, null);
    }

    /** The call was refused for a reason of the executor's, not of an argument. */
    public static ToolException refused(String reason, Throwable cause) {
        return new ToolException(Kind.REFUSED, reason, cause);
    }

    /** The tool failed: {@code message}; {@code cause}'s message must hold no secrets or content either. */
    public static ToolException failed(String message, Throwable cause) {
        return new ToolException(Kind.FAILED, message, cause);
    }

    /**
     * {@code cannot <action> <path>: <reason>}, with the reason the system gave and the path as the model gave it,
     * never the workspace's location on the host.
     */
    public static ToolException io(String action, String path, IOException cause) {
        String reason = cause instanceof FileSystemException fileSystem && fileSystem.getReason() != null
                ? fileSystem.getReason()
                : cause.getClass().getSimpleName();
        return new ToolException(Kind.FAILED, "cannot " + action + " " + path + ": " + reason, cause);
    }

    public Kind kind() {
        return kind;
    }
}
