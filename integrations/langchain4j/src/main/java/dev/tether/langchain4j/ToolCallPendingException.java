package dev.tether.langchain4j;

import java.util.Optional;

/**
 * A tool call cannot go on until a person acts: an approver has not decided it within the bridge's wait, or its
 * outcome is unknown (its process died while it ran and no hook could tell whether it took effect) and an approver must
 * mark it done, retry or abandon it. Nothing ran that should not have. Decide it through Tether's approval API (the
 * item {@link #approvalId()}), then call {@link TetherTools#resume} for the memory: it takes the call from there and puts
 * its result into the memory.
 */
public final class ToolCallPendingException extends TetherMemoryException {

    private static final long serialVersionUID = 1L;

    /** What the call waits for. */
    public enum Reason {
        /** An approver has not decided it yet. */
        AWAITING_APPROVAL,
        /** Tether has not answered it yet (no approver was asked): the approval-service may be away. */
        AWAITING_AUTHORIZATION,
        /** Its outcome is unknown; an approver marks it done, retries or abandons it. */
        OUTCOME_UNKNOWN
    }

    private final String sessionId;
    private final String callId;
    private final String tool;
    private final Reason reason;
    private final String approvalId;

    public ToolCallPendingException(String sessionId, String callId, String tool, Reason reason, String approvalId) {
        super("tool call " + callId + " (" + tool + ") of session " + sessionId + switch (reason) {
            case AWAITING_APPROVAL -> " waits for an approver";
            case AWAITING_AUTHORIZATION -> " waits for Tether's authorization (is the approval-service up?)";
            case OUTCOME_UNKNOWN -> " has an unknown outcome: an approver marks it done, retries or abandons it";
        }
                + (approvalId == null ? "" : " (approval item " + approvalId + ")") + "; decide it, then resume the memory");
        this.sessionId = sessionId;
        this.callId = callId;
        this.tool = tool;
        this.reason = reason;
        this.approvalId = approvalId;
    }

    public String sessionId() {
        return sessionId;
    }

    public String callId() {
        return callId;
    }

    public String tool() {
        return tool;
    }

    public Reason reason() {
        return reason;
    }

    /** The approval item a person decides ({@code <sessionId>~<seq>}), when it is known. */
    public Optional<String> approvalId() {
        return Optional.ofNullable(approvalId);
    }
}
