package dev.tether.executor.domain;

import java.time.Instant;
import java.util.Objects;

/**
 * An outcome as it is recorded: of which call, by which executor instance, when. Immutable.
 *
 * @param request    the call, never null
 * @param executorId the instance that records it, never null
 * @param at         when: the start of a {@link CallOutcome.Started}, the end of a {@link CallOutcome.Ended}; never
 *                   null
 * @param outcome    never null
 */
public record Recorded(CallRequest request, String executorId, Instant at, CallOutcome outcome) {

    public Recorded {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(executorId, "executorId");
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(outcome, "outcome");
    }
}
