package dev.tether.client;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The worker owns the session now: {@code session_claimed} (and, on a re-claim of a session whose
 * worker vanished or is being replaced, {@code session_resumed}) is in the log. Every later append
 * should carry {@link #epoch()}; once another worker claims the session, they answer {@link Fenced}.
 * They should carry {@link #sessionStartedAt()} too: once the session is erased, they answer {@link NotFound}, even when
 * another session was made under its id (whose epochs and seqs repeat this one's). {@link AppendBatch#underClaim} and
 * {@link TetherClient#writer(Claimed)} do both for you.
 *
 * @param sessionId    the session
 * @param workerId     the worker that claimed it
 * @param epoch        the claim's epoch: 1 for the first claim, one more for each later one
 * @param resumeReason why the session was resumed ({@code CRASH}, {@code DEPLOY}); empty for a first claim
 * @param lastSeq      the session's last seq after the claim (its {@code session_claimed}/{@code session_resumed})
 * @param sessionStartedAt when the session's first event was accepted: which session of its id this is; empty from a
 *                     service of an earlier release, or for a session it stored before it kept its start
 */
public record Claimed(String sessionId, String workerId, long epoch, Optional<String> resumeReason, long lastSeq,
                      Optional<Instant> sessionStartedAt) implements ClaimResult {

    public Claimed {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(workerId, "workerId");
        Objects.requireNonNull(resumeReason, "resumeReason");
        Objects.requireNonNull(sessionStartedAt, "sessionStartedAt");
    }

    /** A claim whose session's start is not known. */
    public Claimed(String sessionId, String workerId, long epoch, Optional<String> resumeReason, long lastSeq) {
        this(sessionId, workerId, epoch, resumeReason, lastSeq, Optional.empty());
    }

    /** True when another worker had the session before: read the recovery report before acting. */
    public boolean resumed() {
        return resumeReason.isPresent();
    }

    /** The seq the next event will get: where a subscription that follows this worker's work starts. */
    public long nextSeq() {
        return lastSeq + 1;
    }
}
