package dev.tether.core.event;

/**
 * Why a tool call may run: the tenant's policy, or an {@code approval_granted} event of the same
 * session (its seq). {@link Kind#UNKNOWN} is what an older reader sees of a newer kind; it never
 * suffices to run anything.
 */
public record AuthorizationBasis(Kind kind, Long approvalSeq) {

    public enum Kind { POLICY, APPROVAL, UNKNOWN }

    public static final AuthorizationBasis POLICY = new AuthorizationBasis(Kind.POLICY, null);

    public AuthorizationBasis {
        Fields.required(kind, "basis.kind");
        if (kind == Kind.APPROVAL && (approvalSeq == null || approvalSeq < 1)) {
            throw new InvalidEventException("basis.approvalSeq", "is required for an APPROVAL basis");
        }
    }

    public static AuthorizationBasis approval(long approvalSeq) {
        return new AuthorizationBasis(Kind.APPROVAL, approvalSeq);
    }
}
