package dev.tether.client.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.client.HarnessRunResult;
import dev.tether.client.SessionEvent;
import dev.tether.client.ToolCancelled;
import dev.tether.client.ToolCompleted;
import dev.tether.client.ToolDenied;
import dev.tether.client.ToolOutcomeUnknown;
import dev.tether.client.ToolResolvedByPerson;
import dev.tether.client.ToolStatus;
import dev.tether.core.id.IdempotencyKey;
import java.util.Objects;
import java.util.Optional;

/**
 * One harness-run call folded from its session's log, from the {@code assistant_message} that asked for it on, with the
 * sequencer's rules for it (docs/ARCHITECTURE.md §6, "Harness-run tools"): what {@code HarnessToolRunner} should do
 * next. Pure; not thread-safe (one fold per read). Not API.
 */
public final class HarnessCallFold {

    /** What the runner does next. */
    public sealed interface Next permits Wait, Start, Reconcile, Finished {}

    /** Not authorized yet: wait ({@code awaitingApproval}: an approver was asked). */
    public record Wait(boolean awaitingApproval) implements Next {}

    /** Authorized, not interrupted, no attempt without a result: start attempt {@code attempt} under {@code idempotencyKey}. */
    public record Start(int attempt, String idempotencyKey) implements Next {}

    /**
     * Attempt {@code attempt} started and has no result: its outcome is unknown; reconcile it by {@code handedKey}, the key
     * its start handed the tool (its {@code externalKey}, else the call's key), never start it again.
     */
    public record Reconcile(int attempt, String idempotencyKey, String handedKey) implements Next {}

    /** The call is over for the runner. */
    public record Finished(HarnessRunResult result) implements Next {}

    private final String sessionId;
    private final String callId;
    private final long requestSeq;
    private String tool;
    private String argumentsJson;
    private boolean requestSeen;
    private long lastSeq;
    private long keySeq;
    private boolean authorized;
    private boolean awaitingApproval;
    private boolean running;
    private int attempts;
    private String handedKey;
    private long interruptSeq;
    private long claimEpoch;
    private HarnessRunResult unknown;
    private HarnessRunResult finished;

    public HarnessCallFold(String sessionId, long requestSeq, String callId) {
        this.sessionId = Objects.requireNonNull(sessionId, "sessionId");
        this.callId = Objects.requireNonNull(callId, "callId");
        if (requestSeq < 1) {
            throw new IllegalArgumentException("requestSeq must be at least 1, not " + requestSeq);
        }
        this.requestSeq = requestSeq;
        this.keySeq = requestSeq;
    }

    /** Folds the next event; an event at or before the last one folded is ignored (a page read twice). */
    public void apply(SessionEvent e) {
        if (e.seq() <= lastSeq || e.seq() < requestSeq) {
            return;
        }
        lastSeq = e.seq();
        if (e.seq() == requestSeq) {
            request(e);
            return;
        }
        if (!requestSeen || finished != null) {
            return;
        }
        if (e.type().equals("turn_interrupted")) {
            interruptSeq = e.seq();
            return;
        }
        if (e.type().equals("session_claimed")) {
            claimEpoch = Math.max(claimEpoch, e.longField("epoch").orElse(0));
            return;
        }
        if (!e.text("callId").equals(Optional.of(callId))) {
            return;
        }
        switch (e.type()) {
            case "approval_requested" -> awaitingApproval = true;
            case "approval_granted" -> awaitingApproval = false;
            case "approval_denied" -> finished = new ToolDenied(callId, e.text("approver").map(a -> "denied by " + a + ": ").orElse("denied: ")
                    + e.text("reason").orElse("(no reason)"), e.seq());
            case "tool_call_authorized" -> {
                authorized = true;
                awaitingApproval = false;
            }
            case "tool_call_started" -> {
                attempts = (int) e.longField("attempt").orElse(attempts + 1);
                handedKey = e.text("externalKey").orElse(e.text("idempotencyKey").orElse(key()));
                running = true;
            }
            case "tool_result" -> result(e);
            case "tool_outcome_resolved" -> resolution(e);
            default -> {
                // other types say nothing about this call
            }
        }
    }

    private void request(SessionEvent e) {
        if (!e.type().equals("assistant_message")) {
            return;
        }
        JsonNode calls = e.field("toolCalls").orElse(null);
        if (calls == null || !calls.isArray()) {
            return;
        }
        for (JsonNode call : calls) {
            if (callId.equals(Json.text(call, "callId"))) {
                tool = Json.text(call, "tool");
                String args = Json.text(call, "argumentsJson");
                argumentsJson = args == null ? "{}" : args;
                requestSeen = true;
            }
        }
    }

    private void result(SessionEvent e) {
        ToolStatus status;
        try {
            status = ToolStatus.valueOf(e.text("status").orElse("UNKNOWN"));
        } catch (IllegalArgumentException unknownStatus) {
            status = ToolStatus.UNKNOWN; // a status a newer service added: fail closed
        }
        String key = e.text("idempotencyKey").orElse(key());
        String content = e.text("content").orElse("");
        switch (status) {
            case UNKNOWN -> {
                unknown = new ToolOutcomeUnknown(callId, key, content, e.seq());
                running = false;
                authorized = false;
            }
            case CANCELLED -> finished = new ToolCancelled(callId, content.isEmpty() ? "cancelled" : content, e.seq());
            case ERROR -> finished = running ? completed(e, key, status)
                    : new ToolDenied(callId, content.isEmpty() ? "refused" : content, e.seq()); // the approval-service's answer: it never ran
            case OK -> finished = completed(e, key, status);
        }
    }

    private ToolCompleted completed(SessionEvent e, String key, ToolStatus status) {
        return new ToolCompleted(callId, key, status, e.text("content"), e.seq(), ToolCompleted.How.REPORTED_BEFORE);
    }

    private void resolution(SessionEvent e) {
        String resolution = e.text("resolution").orElse("");
        if (resolution.equals("RETRY")) {
            // a new key derived from the RETRY's seq; the call may start once more
            keySeq = e.seq();
            authorized = true;
            running = false;
            unknown = null;
        } else {
            finished = new ToolResolvedByPerson(callId, resolution, e.text("approver").orElse(""), e.text("reason").orElse(""), e.seq());
        }
    }

    /** True once the requesting event was folded and asks for the call. */
    public boolean requestSeen() {
        return requestSeen;
    }

    public String callId() {
        return callId;
    }

    /** The tool the call names (null before {@link #requestSeen()}). */
    public String tool() {
        return tool;
    }

    public String argumentsJson() {
        return argumentsJson;
    }

    public long requestSeq() {
        return requestSeq;
    }

    /** The highest epoch a {@code session_claimed} after the request gave; 0 when none was folded. */
    public long claimEpoch() {
        return claimEpoch;
    }

    /** The last seq folded. */
    public long lastSeq() {
        return lastSeq;
    }

    /** The call's idempotency key now: from its request, or from the latest RETRY. */
    public String key() {
        return IdempotencyKey.of(sessionId, keySeq, callId);
    }

    /** What to do next, as the log stands so far. */
    public Next next() {
        if (!requestSeen) {
            throw new IllegalStateException("seq " + requestSeq + " of " + sessionId + " is not an assistant_message asking for call " + callId);
        }
        if (finished != null) {
            return new Finished(finished);
        }
        if (unknown != null) {
            return new Finished(unknown);
        }
        if (running) {
            return new Reconcile(attempts, key(), handedKey);
        }
        if (interruptSeq > keySeq) {
            return new Finished(new ToolCancelled(callId, "its turn was interrupted at seq " + interruptSeq + " before it started",
                    interruptSeq));
        }
        return authorized ? new Start(attempts + 1, key()) : new Wait(awaitingApproval);
    }
}
