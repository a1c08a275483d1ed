package dev.tether.approval.domain;

import dev.tether.approval.domain.ApprovalItem.Kind;
import java.util.Arrays;
import java.util.List;

/** What an approver can decide: the first three on a pending approval, the last three on an unknown outcome. */
public enum DecisionKind {
    GRANT_ONCE(Kind.APPROVAL),
    GRANT_SESSION(Kind.APPROVAL),
    DENY(Kind.APPROVAL),
    MARK_DONE(Kind.UNKNOWN_OUTCOME),
    RETRY(Kind.UNKNOWN_OUTCOME),
    ABANDON(Kind.UNKNOWN_OUTCOME);

    private final Kind appliesTo;

    DecisionKind(Kind appliesTo) {
        this.appliesTo = appliesTo;
    }

    public Kind appliesTo() {
        return appliesTo;
    }

    /** The decisions possible on an item of {@code kind}, in order. */
    public static List<DecisionKind> on(Kind kind) {
        return Arrays.stream(values()).filter(d -> d.appliesTo == kind).toList();
    }
}
