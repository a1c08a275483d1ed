package dev.tether.core.event;

/** {@code turn_interrupted}: The current turn was cut short; its partial text is kept. */
public record TurnInterrupted(String partialText, String reason) implements EventPayload {

    public static final String TYPE = "turn_interrupted";

    public TurnInterrupted {
        partialText = partialText == null ? "" : partialText;
        reason = reason == null ? "" : reason;
    }

    /**
     * Whether a {@code turn_interrupted} at {@code interruptSeq} cuts off the tool call asked for by the event at
     * {@code requestSeq} (docs/ARCHITECTURE.md §6): it does when it comes after that event in the session's log. The
     * event that asks for a call is its {@code assistant_message}, or, for a call run again, the
     * {@code tool_outcome_resolved} RETRY that asked for it: the seq in its idempotency key
     * ({@link dev.tether.core.id.IdempotencyKey#requestSeqOf}), so a retry a person asks for after an interruption is a
     * request of its own. A call cut off before it started never starts, whoever would run it and whatever basis it
     * has: the sequencer refuses its authorization, the approval-service answers it CANCELLED, an executor does not
     * start it. One that was running is cancelled. Pure and thread-safe.
     *
     * @param interruptSeq the seq of a {@code turn_interrupted}, or 0 for none
     * @param requestSeq   the seq of the event that asked for the call
     */
    public static boolean cutsOff(long interruptSeq, long requestSeq) {
        return interruptSeq > requestSeq;
    }

    @Override
    public String type() {
        return TYPE;
    }
}
