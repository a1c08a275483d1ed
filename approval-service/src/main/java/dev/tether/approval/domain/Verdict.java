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
        /** The item is decided or ended already, or its call's turn was interrupted (its cancellation is on its way). */
        CONFLICT,
        /** The item under the id is another call than the one the approver saw (its session was erased and made again). */
        CHANGED,
        /** The request does not fit the item (a decision of the other kind, a scope that cannot be parsed, ...). */
        INVALID,
        /** The caller is not an approver. */
        FORBIDDEN
    }
}
