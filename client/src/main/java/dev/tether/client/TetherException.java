package dev.tether.client;

import java.util.Optional;

/**
 * A call that ended without one of its typed outcomes: the service could not be reached (after the
 * retries the call allows), the credentials were refused (401), the service failed (5xx), or it
 * answered something the client does not understand. Business outcomes — a conflict, a fenced
 * worker, a missing session, a refused field — are never thrown; they are the call's result.
 *
 * <p>When a call that is not retried (an approval decision, an erasure) loses its answer, or is
 * answered 502, 503 or 504,
 * {@link #outcomeUnknown()} is true: the call may or may not have taken effect.
 */
public class TetherException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient ApiError error;
    private final boolean outcomeUnknown;

    /** A failure the service explained with an error body. */
    public TetherException(String message, ApiError error) {
        super(message + ": " + error);
        this.error = error;
        this.outcomeUnknown = false;
    }

    /** A failure on the way: no answer, or none that could be read. */
    public TetherException(String message, Throwable cause, boolean outcomeUnknown) {
        super(message, cause);
        this.error = null;
        this.outcomeUnknown = outcomeUnknown;
    }

    /** The service's error answer; empty when there was none (unreachable, timed out). */
    public Optional<ApiError> error() {
        return Optional.ofNullable(error);
    }

    /** True when the request may have been carried out although no answer arrived. */
    public boolean outcomeUnknown() {
        return outcomeUnknown;
    }
}
