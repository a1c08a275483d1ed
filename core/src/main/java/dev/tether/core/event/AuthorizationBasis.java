package dev.tether.core.event;

/**
 * Why a tool call may run: the tenant's policy, or an {@code approval_granted} event of the same
 * session (its seq). {@link Kind#UNKNOWN} is what an older reader sees of a newer kind; it never
 * suffices to run anything.
 *
 * @param pathGlob for an approval by a session-scope grant with a path glob, that glob: the executor checks the call's
 *                 path against it again right before the call starts ({@code dev.tether.core.policy.PathGlob#covers});
 *                 null otherwise
 */
public record AuthorizationBasis(Kind kind, Long approvalSeq, String pathGlob) {

    public enum Kind { POLICY, APPROVAL, UNKNOWN }

    public static final AuthorizationBasis POLICY = new AuthorizationBasis(Kind.POLICY, null, null);

    public AuthorizationBasis {
        Fields.required(kind, "kind");
        if (kind == Kind.APPROVAL && (approvalSeq == null || approvalSeq < 1)) {
            throw new InvalidEventException("approvalSeq", "is required for an APPROVAL basis");
        }
    }

    /** An approval by the {@code approval_granted} event at {@code approvalSeq}, whose reach no path glob limits. */
    public static AuthorizationBasis approval(long approvalSeq) {
        return approval(approvalSeq, null);
    }

    /** An approval by the session-scope grant at {@code approvalSeq}, limited to paths under {@code pathGlob} if not null. */
    public static AuthorizationBasis approval(long approvalSeq, String pathGlob) {
        return new AuthorizationBasis(Kind.APPROVAL, approvalSeq, pathGlob);
    }
}
