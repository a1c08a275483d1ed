package dev.tether.client;

import java.util.Optional;

/**
 * A worker's claim of a session: who it is and which harness version it runs.
 *
 * <pre>{@code
 * ClaimRequest.of("worker-a", "v1")                 // a crash recovery, if someone had it before
 * ClaimRequest.of("worker-b", "v2").asRollout()     // taking over during a deploy: resumed with DEPLOY
 * }</pre>
 *
 * <p>Every claim carries a request id, so its retries are no-ops while it is the latest claim (and
 * {@link Fenced} once another claim superseded it). Without {@link #withRequestId} the client
 * draws a random one per {@link TetherClient#claim} call; fix one to make a claim safe to repeat
 * across a restart of the worker too. Immutable and thread-safe.
 */
public final class ClaimRequest {

    private final String workerId;
    private final String harnessVersion;
    private final boolean rollout;
    private final String requestId;

    private ClaimRequest(String workerId, String harnessVersion, boolean rollout, String requestId) {
        this.workerId = Ids.requireText(workerId, "workerId");
        this.harnessVersion = Ids.requireText(harnessVersion, "harnessVersion");
        this.rollout = rollout;
        this.requestId = requestId;
    }

    public static ClaimRequest of(String workerId, String harnessVersion) {
        return new ClaimRequest(workerId, harnessVersion, false, null);
    }

    /** The claim is part of a rollout: a re-claim is recorded as resumed for DEPLOY, not CRASH. */
    public ClaimRequest asRollout() {
        return new ClaimRequest(workerId, harnessVersion, true, requestId);
    }

    /** A fixed request id (1-128 letters, digits, {@code . _ -}). */
    public ClaimRequest withRequestId(String id) {
        return new ClaimRequest(workerId, harnessVersion, rollout, Ids.require(id, "requestId"));
    }

    public String workerId() {
        return workerId;
    }

    public String harnessVersion() {
        return harnessVersion;
    }

    public boolean rollout() {
        return rollout;
    }

    public Optional<String> requestId() {
        return Optional.ofNullable(requestId);
    }

    @Override
    public String toString() {
        return "ClaimRequest[" + workerId + ", " + harnessVersion + (rollout ? ", rollout" : "") + "]";
    }
}
