package dev.tether.client;

/**
 * Thrown by a result's {@code <success>OrThrow()} when the outcome was not the one the caller
 * counted on, e.g. {@code client.append(id, batch).appendedOrThrow()} on a {@link Conflict}. Handy in scripts
 * and tests; a worker that must react to each outcome switches on the result instead.
 */
public class UnexpectedOutcomeException extends TetherException {

    private static final long serialVersionUID = 1L;

    private final transient Object outcome;

    public UnexpectedOutcomeException(Object outcome) {
        super("unexpected outcome: " + outcome, null, false);
        this.outcome = outcome;
    }

    /** The result record the call returned, e.g. a {@link Conflict}. */
    public Object outcome() {
        return outcome;
    }
}
