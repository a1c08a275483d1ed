package dev.tether.approval.domain;

import dev.tether.core.event.ProposedEvent;

/** The answer of {@link ApprovalMachine#decide} to an approver's decision: the event to append, or why not. */
public sealed interface Verdict permits Verdict.Append, Verdict.Refused {

    /** Append {@code event} in the approver's name; {@code item} is the item decided on, as it stands before. */
    record Append(ProposedEvent event, ApprovalItem item) implements Verdict {}

    /**
     * The decision is refused before anything is written.
     *
     * @param field the request field at fault, for INVALID and CHANGED; null otherwise
     */
    record Refused(Refusal reason, String field, String message) implements Verdict {}

    enum Refusal {
        /** No such item, or another tenant's: the same answer, so existence does not leak. */
        NOT_FOUND,
        /** The item was decided already, by a person (the message names who, and the decision's seq). */
        CONFLICT,
        /**
         * The item ended without a decision taking effect: it expired, or was cancelled (its call's turn was interrupted,
         * its session closed, a grant of it could not be used, decisions on it conflicted), or its call's turn was
         * interrupted and its cancellation is on its way.
         */
        ENDED,
        /** The item under the id is another call than the one the approver saw (its session was erased and made again). */
        CHANGED,
        /** The request does not fit the item (a decision of the other kind, a scope that cannot be parsed, ...). */
        INVALID,
        /** The caller is not an approver, or asked for the call itself and may not take this decision on it. */
        FORBIDDEN
    }
}
