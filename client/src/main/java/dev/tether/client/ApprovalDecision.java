package dev.tether.client;

import java.util.Objects;
import java.util.Optional;

/**
 * An approver's decision on an item. On a pending approval: {@link #grantOnce}, {@link #grantSession}
 * (optionally narrowed to a tool and a path glob) or {@link #deny} (a reason is required). On an
 * unknown outcome: {@link #markDone} (the effect happened), {@link #retry} (run it again under a new
 * idempotency key) or {@link #abandon}. Immutable.
 */
public final class ApprovalDecision {

    /** The decision's wire name. */
    public enum Kind { GRANT_ONCE, GRANT_SESSION, DENY, MARK_DONE, RETRY, ABANDON }

    private final Kind kind;
    private final String tool;
    private final String pathGlob;
    private final String reason;

    private ApprovalDecision(Kind kind, String tool, String pathGlob, String reason) {
        this.kind = Objects.requireNonNull(kind, "kind");
        this.tool = tool;
        this.pathGlob = pathGlob;
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /** Run this one call. */
    public static ApprovalDecision grantOnce(String reason) {
        return new ApprovalDecision(Kind.GRANT_ONCE, null, null, reason);
    }

    /** Run this call, and later calls of the same tool in this session without asking. */
    public static ApprovalDecision grantSession(String reason) {
        return new ApprovalDecision(Kind.GRANT_SESSION, null, null, reason);
    }

    /**
     * Run this call, and later calls of {@code tool} on paths matching {@code pathGlob} (e.g. {@code src/**})
     * in this session without asking.
     */
    public static ApprovalDecision grantSession(String tool, String pathGlob, String reason) {
        return new ApprovalDecision(Kind.GRANT_SESSION, Ids.requireText(tool, "tool"), Ids.requireText(pathGlob, "pathGlob"), reason);
    }

    /** Refuse the call; the reason is required and is what the model is told. */
    public static ApprovalDecision deny(String reason) {
        return new ApprovalDecision(Kind.DENY, null, null, Ids.requireText(reason, "reason"));
    }

    /** The call whose outcome was unknown did take effect: count it as succeeded. */
    public static ApprovalDecision markDone(String reason) {
        return new ApprovalDecision(Kind.MARK_DONE, null, null, reason);
    }

    /** The call whose outcome was unknown did not take effect: run it once more. */
    public static ApprovalDecision retry(String reason) {
        return new ApprovalDecision(Kind.RETRY, null, null, reason);
    }

    /** Give the call whose outcome was unknown up: count it as cancelled. */
    public static ApprovalDecision abandon(String reason) {
        return new ApprovalDecision(Kind.ABANDON, null, null, reason);
    }

    public Kind kind() {
        return kind;
    }

    /** For GRANT_SESSION: the tool the grant covers; empty for the decided call's tool. */
    public Optional<String> tool() {
        return Optional.ofNullable(tool);
    }

    /** For GRANT_SESSION: the paths it covers; empty for any. */
    public Optional<String> pathGlob() {
        return Optional.ofNullable(pathGlob);
    }

    /** Why; possibly empty (except for DENY). */
    public String reason() {
        return reason;
    }

    @Override
    public String toString() {
        return "ApprovalDecision[" + kind + (tool == null ? "" : ", tool=" + tool) + (pathGlob == null ? "" : ", pathGlob=" + pathGlob)
                + "]";
    }
}
