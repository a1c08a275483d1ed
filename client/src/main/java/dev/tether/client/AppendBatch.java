package dev.tether.client;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Events appended together, all or nothing, in order: typically everything one step of the agent
 * produced. Each event's id is {@link EventIds#of EventIds.of(sessionId, stepKey, index)} unless the
 * event fixes its own, so sending the batch again — after a timeout, after a crash and restart —
 * appends nothing twice and answers the original seqs.
 *
 * <pre>{@code
 * AppendBatch.forStep("turn-3", NewEvent.userMessage("..."), NewEvent.assistantMessage(...))
 *         .expectingSeq(12)   // refuse (Conflict) if anything was appended after seq 12
 *         .withEpoch(2)       // refuse (Fenced) if another worker claimed the session since epoch 2
 * }</pre>
 *
 * <p>A worker appends {@link #underClaim under its claim}: its epoch, and the session's start, which refuses the batch
 * ({@link NotFound}) once the session is erased, even when another session was made under its id since.
 *
 * <p>A step key must name the work, not the attempt, and must not be reused for other events in the
 * same session: a batch whose ids are all in the log already is answered with their seqs, whatever
 * its events say. Immutable and thread-safe.
 */
public final class AppendBatch {

    private final String stepKey;
    private final List<NewEvent> events;
    private final Long expectedSeq;
    private final Long epoch;
    private final Instant sessionStartedAt;

    private AppendBatch(String stepKey, List<NewEvent> events, Long expectedSeq, Long epoch, Instant sessionStartedAt) {
        this.stepKey = Ids.requireText(stepKey, "stepKey");
        this.events = NewSession.noNulls(events, "events");
        if (this.events.isEmpty()) {
            throw new IllegalArgumentException("a batch needs at least one event");
        }
        this.expectedSeq = expectedSeq;
        this.epoch = epoch;
        this.sessionStartedAt = sessionStartedAt;
    }

    /** The events of step {@code stepKey}, ids derived from it. */
    public static AppendBatch forStep(String stepKey, List<NewEvent> events) {
        return new AppendBatch(stepKey, events, null, null, null);
    }

    /** The events of step {@code stepKey}, ids derived from it. */
    public static AppendBatch forStep(String stepKey, NewEvent... events) {
        return forStep(stepKey, Arrays.asList(Objects.requireNonNull(events, "events"))); // List.of would refuse a null unnamed
    }

    /** The same batch, appended only if the session's last seq is {@code lastSeq} (else {@link Conflict}). */
    public AppendBatch expectingSeq(long lastSeq) {
        if (lastSeq < 0) {
            throw new IllegalArgumentException("expectedSeq must not be negative, not " + lastSeq);
        }
        return new AppendBatch(stepKey, events, lastSeq, epoch, sessionStartedAt);
    }

    /** The same batch, appended only if the session's epoch is still {@code claimEpoch} (else {@link Fenced}). */
    public AppendBatch withEpoch(long claimEpoch) {
        if (claimEpoch < 0) {
            throw new IllegalArgumentException("epoch must not be negative, not " + claimEpoch);
        }
        return new AppendBatch(stepKey, events, expectedSeq, claimEpoch, sessionStartedAt);
    }

    /**
     * The same batch, appended only to the session of its id that started at {@code startedAt} (a create's or claim's
     * {@code sessionStartedAt}); once that session is erased the batch is refused as {@link NotFound}, even when another
     * session was made under the id since.
     */
    public AppendBatch forSessionStartedAt(Instant startedAt) {
        return new AppendBatch(stepKey, events, expectedSeq, epoch, Objects.requireNonNull(startedAt, "startedAt"));
    }

    /**
     * The same batch, appended only under {@code claim}: if the session's epoch is still the claim's (else {@link Fenced})
     * and it is the session the claim was made in (else {@link NotFound}; when the claim knows its session's start).
     */
    public AppendBatch underClaim(Claimed claim) {
        AppendBatch fenced = withEpoch(claim.epoch());
        return claim.sessionStartedAt().map(fenced::forSessionStartedAt).orElse(fenced);
    }

    public String stepKey() {
        return stepKey;
    }

    public List<NewEvent> events() {
        return events;
    }

    public OptionalLong expectedSeq() {
        return expectedSeq == null ? OptionalLong.empty() : OptionalLong.of(expectedSeq);
    }

    public OptionalLong epoch() {
        return epoch == null ? OptionalLong.empty() : OptionalLong.of(epoch);
    }

    public Optional<Instant> sessionStartedAt() {
        return Optional.ofNullable(sessionStartedAt);
    }

    /** The eventIds the batch's events get in {@code sessionId}, in order. */
    public List<String> eventIds(String sessionId) {
        var ids = new ArrayList<String>(events.size());
        for (int i = 0; i < events.size(); i++) {
            int index = i;
            ids.add(events.get(i).eventId().orElseGet(() -> EventIds.of(sessionId, stepKey, index)));
        }
        return ids;
    }

    @Override
    public String toString() {
        return "AppendBatch[step=" + stepKey + ", events=" + events.size() + (expectedSeq == null ? "" : ", expectedSeq=" + expectedSeq)
                + (epoch == null ? "" : ", epoch=" + epoch) + (sessionStartedAt == null ? "" : ", sessionStartedAt=" + sessionStartedAt) + "]";
    }
}
