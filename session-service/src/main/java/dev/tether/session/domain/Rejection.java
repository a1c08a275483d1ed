package dev.tether.session.domain;

import java.util.Locale;

/** Why the sequencer refused a command. {@link #wireName()} is the stable code clients see. */
public enum Rejection {
    /** No such session, or another tenant's (the same answer, so existence does not leak). */
    NOT_FOUND,
    /** {@code expectedSeq} is not the session's last seq. */
    SEQ_CONFLICT,
    /** The caller's worker epoch is not the session's: another worker claimed it since. */
    STALE_EPOCH,
    /** The session is pinned to another harness version. */
    VERSION_PINNED,
    /** An event breaks a rule of the log (unknown call, type the caller may not write, ...). */
    ILLEGAL_EVENT,
    /** The assistant message would take the session over its token budget. */
    BUDGET_EXCEEDED,
    /** Nothing may happen to a closed session. */
    SESSION_CLOSED,
    /** The caller's role does not allow the command. */
    FORBIDDEN;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
