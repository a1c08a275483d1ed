package dev.tether.client;

import java.util.Objects;
import java.util.Optional;

/**
 * The call's {@code tool_result} is OK or ERROR: its effect is known; never run it again.
 *
 * @param callId         the call
 * @param idempotencyKey the key of the attempt that produced the result
 * @param status         OK or ERROR
 * @param content        the result's content, if any
 * @param resultSeq      the {@code tool_result}'s seq
 * @param how            whether this run ran it, reconciled an earlier attempt, or found the result in the log
 */
public record ToolCompleted(String callId, String idempotencyKey, ToolStatus status, Optional<String> content, long resultSeq, How how)
        implements HarnessRunResult {

    /** Where the result came from. */
    public enum How {
        /**
         * This run started the attempt, ran the function and appended the result (an ERROR when the function of a call
         * started {@link HarnessToolRunner#MAX_STARTS} times threw, and the hook found the attempt had no effect).
         */
        RAN,
        /**
         * An earlier attempt had no result; the reconciliation hook found it took effect, and this run reported it (or
         * found it had none, and the call, started {@link HarnessToolRunner#MAX_STARTS} times, ended ERROR).
         */
        RECONCILED,
        /** The log had the result already (a re-run of the same step): nothing was run or appended. */
        REPORTED_BEFORE
    }

    public ToolCompleted {
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(content, "content");
        Objects.requireNonNull(how, "how");
    }
}
