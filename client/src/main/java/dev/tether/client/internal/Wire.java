package dev.tether.client.internal;

import static dev.tether.client.internal.Json.booleanValue;
import static dev.tether.client.internal.Json.elements;
import static dev.tether.client.internal.Json.instant;
import static dev.tether.client.internal.Json.intValue;
import static dev.tether.client.internal.Json.longValue;
import static dev.tether.client.internal.Json.nullableLong;
import static dev.tether.client.internal.Json.objectOrNull;
import static dev.tether.client.internal.Json.optionalText;
import static dev.tether.client.internal.Json.requiredElements;
import static dev.tether.client.internal.Json.requiredLong;
import static dev.tether.client.internal.Json.requiredText;
import static dev.tether.client.internal.Json.strings;
import static dev.tether.client.internal.Json.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.client.Actor;
import dev.tether.client.Appended;
import dev.tether.client.Approval;
import dev.tether.client.CallRecord;
import dev.tether.client.Checkpoint;
import dev.tether.client.Claimed;
import dev.tether.client.Created;
import dev.tether.client.Erased;
import dev.tether.client.EventPage;
import dev.tether.client.Forked;
import dev.tether.client.SubagentStarted;
import dev.tether.client.ToolMode;
import dev.tether.client.HarnessVersion;
import dev.tether.client.Migrated;
import dev.tether.client.ModelContext;
import dev.tether.client.PlanItem;
import dev.tether.client.RecoveryReport;
import dev.tether.client.SessionEvent;
import dev.tether.client.SessionInfo;
import dev.tether.client.TokenUsage;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The services' JSON answers read into the SDK's records, one method per answer. Lenient where
 * that keeps an older client working with a newer service (unknown fields are ignored, states stay
 * strings); strict only about what the answer cannot do without. Not part of the API. Stateless.
 */
public final class Wire {

    private Wire() {}

    // --- session-service --------------------------------------------------------------------------

    public static Created created(JsonNode n) {
        return new Created(requiredText(n, "sessionId"), requiredLong(n, "seq"), text(n, "harnessVersion"), text(n, "modelId"),
                intValue(n, "redactions", 0), Optional.ofNullable(instant(n, "sessionStartedAt")));
    }

    public static Appended appended(JsonNode n) {
        var events = requiredElements(n, "appended").stream()
                .map(a -> new Appended.AppendedEvent(requiredText(a, "eventId"), requiredLong(a, "seq"), booleanValue(a, "duplicate")))
                .toList();
        return new Appended(events, requiredLong(n, "lastSeq"), intValue(n, "redactions", 0));
    }

    public static Claimed claimed(JsonNode n, String sessionId, String workerId) {
        return new Claimed(sessionId, workerId, requiredLong(n, "epoch"), optionalText(n, "reason"), requiredLong(n, "lastSeq"),
                Optional.ofNullable(instant(n, "sessionStartedAt")));
    }

    public static SubagentStarted subagentStarted(JsonNode n) {
        return new SubagentStarted(requiredText(n, "sessionId"), requiredText(n, "parentSessionId"), requiredLong(n, "seq"),
                text(n, "harnessVersion"), text(n, "modelId"),
                "WRITE".equals(text(n, "toolMode")) ? ToolMode.WRITE : ToolMode.READ_ONLY, // an unknown mode reads as the narrower one
                intValue(n, "redactions", 0),
                Optional.ofNullable(instant(n, "sessionStartedAt")));
    }

    public static Forked forked(JsonNode n) {
        return new Forked(requiredText(n, "sessionId"), requiredText(n, "parentSessionId"), requiredLong(n, "atSeq"), requiredLong(n, "seq"),
                text(n, "harnessVersion"), text(n, "modelId"), optionalLong(n, "tokenBudget"), Optional.ofNullable(instant(n, "sessionStartedAt")));
    }

    public static Erased erased(JsonNode n) {
        return new Erased(requiredText(n, "erased"), longValue(n, "events", 0));
    }

    public static Migrated migrated(JsonNode n, String sessionId) {
        return new Migrated(sessionId, requiredText(n, "harnessVersion"), requiredLong(n, "lastSeq"));
    }

    public static SessionEvent event(JsonNode n) {
        if (!n.isObject()) {
            throw new MalformedAnswerException("an event is a JSON object");
        }
        JsonNode actor = objectOrNull(n, "actor");
        return new SessionEvent(requiredLong(n, "seq"), requiredText(n, "eventId"), requiredText(n, "type"), text(n, "sessionId"),
                instant(n, "occurredAt"), actor == null ? new Actor("UNKNOWN", "") : new Actor(text(actor, "kind"), text(actor, "id")),
                text(n, "harnessVersion"), (ObjectNode) n);
    }

    public static EventPage page(JsonNode n) {
        return new EventPage(requiredElements(n, "events").stream().map(Wire::event).toList(), requiredLong(n, "lastSeq"),
                requiredLong(n, "nextSeq"));
    }

    public static SessionInfo sessionInfo(JsonNode n) {
        return new SessionInfo(requiredText(n, "sessionId"), text(n, "tenantId"), text(n, "owner"), text(n, "status"),
                longValue(n, "lastSeq", 0), longValue(n, "epoch", 0), optionalText(n, "workerId"), text(n, "modelId"),
                text(n, "harnessVersion"), optionalText(n, "parentSessionId"), Optional.ofNullable(instant(n, "sessionStartedAt")));
    }

    public static List<SessionInfo> sessions(JsonNode n) {
        return requiredElements(n, "sessions").stream().map(Wire::sessionInfo).toList();
    }

    public static List<HarnessVersion> versions(JsonNode n) {
        return requiredElements(n, "versions").stream()
                .map(v -> new HarnessVersion(requiredText(v, "version"), intValue(v, "weight", 0), requiredText(v, "state"),
                        booleanValue(v, "default"), optionalText(v, "modelId"), longValue(v, "openSessions", 0),
                        v.path("share").asDouble(0)))
                .toList();
    }

    // --- projector-service ------------------------------------------------------------------------

    public static Checkpoint checkpoint(JsonNode n) {
        JsonNode pending = objectOrNull(n, "pendingAction");
        JsonNode progress = objectOrNull(n, "progress");
        JsonNode lease = objectOrNull(n, "lease");
        return new Checkpoint(requiredText(n, "sessionId"), text(n, "tenantId"), intValue(n, "schemaVersion", 0), requiredLong(n, "lastSeq"),
                text(n, "owner"), text(n, "objective"), strings(n, "constraints"), text(n, "modelId"), text(n, "harnessVersion"),
                text(n, "toolMode"), requiredText(n, "status"), intValue(n, "step", 0), usage(objectOrNull(n, "usedTokens")),
                optionalLong(n, "tokenBudget"),
                pending == null ? Optional.empty()
                        : Optional.of(new Checkpoint.PendingAction(text(pending, "kind"), optionalText(pending, "callId"),
                                longValue(pending, "sinceSeq", 0))),
                elements(n, "toolCursor").stream()
                        .map(c -> new Checkpoint.CallCursor(requiredText(c, "callId"), text(c, "tool"), longValue(c, "requestSeq", 0),
                                text(c, "idempotencyKey"), text(c, "state"), optionalLong(c, "resultSeq"), booleanValue(c, "awaitingApproval"),
                                textOr(c, "runBy", "EXECUTOR"), intValue(c, "attempt", 0)))
                        .toList(),
                elements(n, "plan").stream().map(Wire::planItem).toList(),
                new Checkpoint.Progress(intValue(progress, "lastVerifiedStep", 0), intValue(progress, "stepsCompleted", 0),
                        optionalText(progress, "lastNote")),
                lease == null ? Optional.empty()
                        : Optional.of(new Checkpoint.Lease(text(lease, "workerId"), longValue(lease, "epoch", 0), text(lease, "harnessVersion"),
                                instant(lease, "claimedAt"))),
                instant(n, "updatedAt"), Json.write(n));
    }

    public static ModelContext context(JsonNode n) {
        JsonNode messages = n.get("messages");
        if (messages == null || !messages.isArray()) {
            throw new MalformedAnswerException("the context has no messages");
        }
        return new ModelContext(requiredText(n, "format"), optionalText(n, "system"), Json.write(messages), intValue(n, "stablePrefixSize", 0),
                intValue(n, "tokens", 0), text(n, "tokenizer"), intValue(n, "window", 0), booleanValue(n, "compactionAdvised"),
                longValue(n, "atSeq", 0), intValue(n, "droppedEvents", 0), Json.write(n));
    }

    public static RecoveryReport recovery(JsonNode n) {
        JsonNode identity = objectOrNull(n, "identity");
        JsonNode position = objectOrNull(n, "position");
        JsonNode effects = objectOrNull(n, "effects");
        JsonNode authority = objectOrNull(n, "authority");
        JsonNode totals = objectOrNull(effects, "totals");
        if (identity == null || position == null) {
            throw new MalformedAnswerException("the recovery report has no identity or position");
        }
        return new RecoveryReport(
                new RecoveryReport.Identity(requiredText(identity, "sessionId"), text(identity, "tenantId"), text(identity, "owner"),
                        text(identity, "modelId"), text(identity, "harnessVersion"), longValue(identity, "epoch", 0),
                        optionalText(identity, "workerId")),
                new RecoveryReport.Position(requiredLong(position, "lastSeq"), intValue(position, "step", 0),
                        intValue(position, "lastVerifiedStep", 0), text(position, "status"), optionalText(position, "lastNote")),
                new RecoveryReport.Effects(calls(effects, "confirmed"), calls(effects, "cancelled"), calls(effects, "unknown"),
                        calls(effects, "inFlight"),
                        new RecoveryReport.Totals(intValue(totals, "ok", 0), intValue(totals, "error", 0), intValue(totals, "cancelled", 0),
                                intValue(totals, "unknown", 0)),
                        elements(effects, "harnessRun").stream()
                                .map(c -> new RecoveryReport.HarnessCall(requiredText(c, "callId"), text(c, "tool"), text(c, "outcome"),
                                        text(c, "state"), booleanValue(c, "recordedOnly"), booleanValue(c, "exactlyOnce"),
                                        intValue(c, "attempt", 0), optionalLong(c, "startedEpoch"), text(c, "idempotencyKey")))
                                .toList()),
                new RecoveryReport.Authority(
                        elements(authority, "approvalsInForce").stream()
                                .map(g -> new RecoveryReport.Grant(longValue(g, "grantSeq", 0), text(g, "tool"), optionalText(g, "pathGlob"),
                                        text(g, "approver")))
                                .toList(),
                        calls(authority, "pendingApprovals")),
                strings(n, "nextSafeActions"), Json.write(n));
    }

    public static CallRecord callRecord(JsonNode n) {
        JsonNode approval = objectOrNull(n, "approval");
        return new CallRecord(requiredText(n, "sessionId"), requiredText(n, "callId"), text(n, "tool"), text(n, "argumentsJson"),
                longValue(n, "requestSeq", 0), text(n, "idempotencyKey"), optionalLong(n, "authorizedSeq"), optionalText(n, "basis"),
                approval == null ? Optional.empty()
                        : Optional.of(new CallRecord.Decision(longValue(approval, "seq", 0), text(approval, "decision"),
                                optionalText(approval, "scope"), text(approval, "approver"), text(approval, "reason"),
                                instant(approval, "decidedAt"))),
                optionalLong(n, "resultSeq"), optionalText(n, "resultStatus"), optionalText(n, "traceId"),
                elements(n, "attempts").stream()
                        .map(a -> new CallRecord.Attempt(intValue(a, "attempt", 0), text(a, "state"), text(a, "executorId"),
                                instant(a, "startedAt"), Optional.ofNullable(instant(a, "finishedAt"))))
                        .toList(),
                eventAt(n, "requestedBy"), eventAt(n, "authorizedBy"), eventAt(n, "result"), Json.write(n));
    }

    // --- approval-service -------------------------------------------------------------------------

    public static Approval approval(JsonNode n) {
        JsonNode decision = objectOrNull(n, "decision");
        JsonNode arguments = n.get("arguments");
        Instant expires = instant(n, "expiresAt");
        return new Approval(requiredText(n, "id"), requiredText(n, "kind"), requiredText(n, "status"), text(n, "sessionId"), text(n, "callId"),
                text(n, "tool"), arguments == null || arguments.isNull() ? "{}" : arguments.isTextual() ? arguments.asText() : Json.write(arguments),
                text(n, "shown"), longValue(n, "seq", 0), longValue(n, "requestSeq", 0), instant(n, "requestedAt"), text(n, "requestedBy"),
                text(n, "model"), Optional.ofNullable(expires), optionalText(n, "outcome"), strings(n, "decisions"),
                optionalText(n, "suggestedPathGlob"), optionalText(n, "runBy"),
                decision == null ? Optional.empty()
                        : Optional.of(new Approval.Decision(text(decision, "decision"), text(decision, "approver"),
                                Optional.ofNullable(text(decision, "reason")).orElse(""), optionalText(decision, "tool"),
                                optionalText(decision, "pathGlob"), longValue(decision, "seq", 0), instant(decision, "decidedAt"))),
                optionalText(n, "endedBecause"), Json.write(n));
    }

    public static List<Approval> approvals(JsonNode n) {
        return requiredElements(n, "approvals").stream().map(Wire::approval).toList();
    }

    // ---------------------------------------------------------------------------------------------

    private static TokenUsage usage(JsonNode n) {
        return n == null ? new TokenUsage(0, 0) : new TokenUsage(longValue(n, "inputTokens", 0), longValue(n, "outputTokens", 0));
    }

    private static PlanItem planItem(JsonNode n) {
        String status = text(n, "status");
        PlanItem.Status s;
        try {
            s = status == null ? PlanItem.Status.PENDING : PlanItem.Status.valueOf(status);
        } catch (IllegalArgumentException e) {
            s = PlanItem.Status.PENDING; // a status a newer projector added: shown as still to do
        }
        String text = text(n, "text");
        return new PlanItem(text == null || text.isBlank() ? "(no text)" : text, s);
    }

    private static List<RecoveryReport.Call> calls(JsonNode parent, String field) {
        return elements(parent, field).stream()
                .map(c -> new RecoveryReport.Call(requiredText(c, "callId"), text(c, "tool"), text(c, "state"), longValue(c, "requestSeq", 0),
                        optionalLong(c, "resultSeq"), text(c, "idempotencyKey")))
                .toList();
    }

    /** A text field, or {@code fallback} when an older service leaves it out. */
    private static String textOr(JsonNode n, String field, String fallback) {
        String value = text(n, field);
        return value == null ? fallback : value;
    }

    private static OptionalLong optionalLong(JsonNode n, String field) {
        Long value = nullableLong(n, field);
        return value == null ? OptionalLong.empty() : OptionalLong.of(value);
    }

    private static Optional<SessionEvent> eventAt(JsonNode n, String field) {
        JsonNode e = objectOrNull(n, field);
        return e == null ? Optional.empty() : Optional.of(event(e));
    }
}
