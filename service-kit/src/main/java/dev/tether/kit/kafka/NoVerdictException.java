package dev.tether.kit.kafka;

/**
 * A command got no verdict: the channel does not read verdicts yet, the command could not be written, or the
 * sequencer did not answer in time. The command may or may not have been applied; sending it again with the same ids
 * is safe (the sequencer deduplicates them). The REST layer answers 503 with {@code Retry-After:
 * }{@link #retryAfterSeconds()}.
 */
public final class NoVerdictException extends RuntimeException {

    private final int retryAfterSeconds;

    NoVerdictException(String message, int retryAfterSeconds) {
        super(message);
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** How long the caller should wait before sending the command again. */
    public int retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
