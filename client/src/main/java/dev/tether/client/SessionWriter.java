package dev.tether.client;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Appends to one session as the worker that claimed it: every batch carries the claim's epoch, so
 * once another worker claims the session, every append answers {@link Fenced} and the worker knows
 * to stop; and the session's start, so once the session is erased every append answers {@link NotFound}, even when
 * another session was made under its id. Tracks the highest last seq its answers reported.
 *
 * <pre>{@code
 * Claimed claim = client.claim(sessionId, ClaimRequest.of("worker-a", "v1")).claimedOrThrow();
 * SessionWriter writer = client.writer(claim);
 * AppendResult result = writer.append("turn-1", NewEvent.userMessage("..."));
 * if (result instanceof Fenced) {
 *     return; // another worker has the session now
 * }
 * }</pre>
 *
 * <p>Thread-safe; lives as long as its client.
 */
public final class SessionWriter {

    private final TetherClient client;
    private final String sessionId;
    private final Claimed claim;
    private final AtomicLong lastSeq;

    /** A writer for the session {@code claim} claimed, appending through {@code client}. */
    public SessionWriter(TetherClient client, Claimed claim) {
        this.client = Objects.requireNonNull(client, "client");
        this.sessionId = Objects.requireNonNull(claim, "claim").sessionId();
        this.claim = claim;
        this.lastSeq = new AtomicLong(claim.lastSeq());
    }

    /** Appends the events of step {@code stepKey} (ids derived from it) under this writer's epoch. */
    public AppendResult append(String stepKey, NewEvent... events) {
        return append(AppendBatch.forStep(stepKey, events));
    }

    /** Appends {@code batch} {@link AppendBatch#underClaim under this writer's claim} (any epoch and start the batch had are replaced). */
    public AppendResult append(AppendBatch batch) {
        AppendResult result = client.append(sessionId, batch.underClaim(claim));
        if (result instanceof Appended a) {
            lastSeq.accumulateAndGet(a.lastSeq(), Math::max);
        } else if (result instanceof Conflict c) {
            lastSeq.accumulateAndGet(c.lastSeq(), Math::max);
        }
        return result;
    }

    public String sessionId() {
        return sessionId;
    }

    public long epoch() {
        return claim.epoch();
    }

    /** The highest last seq an answer reported (starting with the claim's). */
    public long lastSeq() {
        return lastSeq.get();
    }

    @Override
    public String toString() {
        return "SessionWriter[" + sessionId + ", epoch " + claim.epoch() + ", lastSeq " + lastSeq.get() + "]";
    }
}
