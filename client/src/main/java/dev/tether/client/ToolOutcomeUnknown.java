package dev.tether.client;

import java.util.Objects;

/**
 * The call's outcome is unknown ({@code tool_result UNKNOWN}): an attempt started and nobody can tell whether it took
 * effect. It waits for a person (MARK_DONE, RETRY or ABANDON); never run it again on a guess. After a person's RETRY,
 * {@link HarnessToolRunner#run} runs it once more.
 *
 * @param callId         the call
 * @param idempotencyKey the key of the attempt whose outcome is unknown
 * @param reason         the UNKNOWN result's content
 * @param seq            that result's seq
 */
public record ToolOutcomeUnknown(String callId, String idempotencyKey, String reason, long seq) implements HarnessRunResult {

    public ToolOutcomeUnknown {
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(reason, "reason");
    }
}
