package dev.tether.core.event;

import dev.tether.core.blob.BlobRef;

/**
 * Why a tool call may run: the tenant's policy, or an {@code approval_granted} event of the same
 * session (its seq). {@link Kind#UNKNOWN} is what an older reader sees of a newer kind; it never
 * suffices to run anything.
 *
 * @param pathGlob    for an approval by a session-scope grant with a path glob, that glob: the executor checks the call's
 *                    path against it again right before the call starts ({@code dev.tether.core.policy.PathGlob#covers});
 *                    null otherwise
 * @param shownSha256 for an approval of the call an approver was shown, the SHA-256 (lower-case hex) of what they were
 *                    shown, as the tool worked it out ({@link ApprovalRequested#shownSha256}): the executor works it out
 *                    again right before the call starts and runs the call only if it is the same; null otherwise (a
 *                    call a session grant covered, a harness-run call, a policy)
 */
public record AuthorizationBasis(Kind kind, Long approvalSeq, String pathGlob, String shownSha256) {

    public enum Kind { POLICY, APPROVAL, UNKNOWN }

    public static final AuthorizationBasis POLICY = new AuthorizationBasis(Kind.POLICY, null, null);

    public AuthorizationBasis {
        Fields.required(kind, "kind");
        if (kind == Kind.APPROVAL && (approvalSeq == null || approvalSeq < 1)) {
            throw new InvalidEventException("approvalSeq", "is required for an APPROVAL basis");
        }
        if (shownSha256 != null && (kind != Kind.APPROVAL || !BlobRef.isSha256(shownSha256))) {
            throw new InvalidEventException("shownSha256", "is 64 lower-case hexadecimal digits, and only on an APPROVAL basis");
        }
    }

    /** A basis without {@code shownSha256}. */
    public AuthorizationBasis(Kind kind, Long approvalSeq, String pathGlob) {
        this(kind, approvalSeq, pathGlob, null);
    }

    /** An approval by the {@code approval_granted} event at {@code approvalSeq}, whose reach no path glob limits. */
    public static AuthorizationBasis approval(long approvalSeq) {
        return approval(approvalSeq, null);
    }

    /** An approval by the session-scope grant at {@code approvalSeq}, limited to paths under {@code pathGlob} if not null. */
    public static AuthorizationBasis approval(long approvalSeq, String pathGlob) {
        return new AuthorizationBasis(Kind.APPROVAL, approvalSeq, pathGlob);
    }

    /**
     * An approval, by the {@code approval_granted} event at {@code approvalSeq}, of the call an approver was shown:
     * {@code shownSha256} the hash of what they were shown, or null if no hash of it is known.
     */
    public static AuthorizationBasis approvalOfShown(long approvalSeq, String shownSha256) {
        return new AuthorizationBasis(Kind.APPROVAL, approvalSeq, null, shownSha256);
    }
}
