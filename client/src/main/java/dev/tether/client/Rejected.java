package dev.tether.client;

import java.util.Objects;
import java.util.Optional;

/**
 * The service refused the request and said why: a field that is wrong (400 {@code invalid_field},
 * {@code malformed_json}), a role that may not do this (403 {@code forbidden}), a request too large
 * (413 {@code too_large}), or an event the session may not take (422 {@code illegal_event},
 * {@code session_closed}, {@code budget_exceeded}). Sending the same request again gets the same
 * answer.
 *
 * @param status  the HTTP status
 * @param code    the stable error code, never null
 * @param message the explanation, never null
 * @param field   the request field named as wrong, e.g. {@code events[0].type}; empty when the refusal is about no field
 */
public record Rejected(int status, String code, String message, Optional<String> field)
        implements CreateResult, ClaimResult, AppendResult, ForkResult, EraseResult, MigrateResult, DecisionResult, VersionResult,
        HarnessRunResult, SubagentStartResult {

    /** The error code of an append to a closed session. */
    public static final String SESSION_CLOSED = "session_closed";
    /** The error code of an assistant message over the session's token budget. */
    public static final String BUDGET_EXCEEDED = "budget_exceeded";
    /** The error code of an event the sequencer does not allow here. */
    public static final String ILLEGAL_EVENT = "illegal_event";
    /** The error code of a malformed field. */
    public static final String INVALID_FIELD = "invalid_field";

    public Rejected {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(field, "field");
    }

    /** The refusal an error answer describes. */
    public static Rejected of(ApiError error) {
        return new Rejected(error.status(), error.code(), error.message(), error.field());
    }
}
