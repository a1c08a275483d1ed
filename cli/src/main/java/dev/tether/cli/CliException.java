package dev.tether.cli;

/**
 * A command failed for a reason the user can act on; its message is the one line printed on
 * stderr (after {@code tether: }), and the exit status is 1.
 */
public final class CliException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public CliException(String message) {
        super(message);
    }

    public CliException(String message, Throwable cause) {
        super(message, cause);
    }
}
