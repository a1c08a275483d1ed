package dev.tether.kit.service.openapi;

import dev.tether.core.event.Actor;
import dev.tether.core.event.ApprovalDenied;
import dev.tether.core.event.ApprovalGranted;
import dev.tether.core.event.ApprovalRequested;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.ContextCompacted;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.EventTypes;
import dev.tether.core.event.FrameworkState;
import dev.tether.core.event.HarnessTool;
import dev.tether.core.event.PlanItem;
import dev.tether.core.event.SessionClaimed;
import dev.tether.core.event.SessionForked;
import dev.tether.core.event.SessionMigrated;
import dev.tether.core.event.SessionResumed;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.StepCompleted;
import dev.tether.core.event.SubagentResult;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolCallStarted;
import dev.tether.core.event.ToolOutcomeResolved;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.UserMessage;
import dev.tether.kit.json.EventJson;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.media.Schema.SchemaType;

/**
 * The events of the REST API (docs/ARCHITECTURE.md §4, {@link EventJson}) as schemas: {@code Event}, an event as it is
 * read back (envelope and payload), and {@code NewEvent}, an event as a client sends it ({@code eventId}, {@code type}
 * and the payload fields a client may set); each a {@code oneOf} of one schema per type, discriminated by {@code type}.
 * The types come from {@link EventTypes}, so a new event type is in the documents as soon as it is in {@code core}; its
 * properties from its record, as {@link EventJson}'s mapper reads and writes it; which are required, from the two
 * tables below ({@code EventSchemasTest} fails for a type or field the tables do not describe truly).
 */
public final class EventSchemas {

    /** The component of an event read back. */
    public static final String EVENT = "Event";
    /** The component of an event a client sends. */
    public static final String NEW_EVENT = "NewEvent";

    /**
     * The fields a client must send, per payload record (the record refuses the event without them), besides its numbers
     * and booleans, which are always required ({@link ApiSchemas}); the others may be left out. A type missing here has
     * none.
     */
    static final Map<Class<?>, Set<String>> REQUIRED_ON_REQUEST = Map.ofEntries(
            Map.entry(SessionStarted.class, Set.of("objective", "systemPrompt", "modelId", "harnessVersion", "toolMode")),
            Map.entry(UserMessage.class, Set.of("content")),
            Map.entry(AssistantMessage.class, Set.of("content")),
            Map.entry(ApprovalRequested.class, Set.of("callId", "tool", "shown")),
            Map.entry(ApprovalGranted.class, Set.of("callId", "scope", "approver")),
            Map.entry(ApprovalDenied.class, Set.of("callId", "scope", "approver")),
            Map.entry(ToolCallAuthorized.class, Set.of("callId", "basis")),
            Map.entry(ToolResult.class, Set.of("callId", "status")),
            Map.entry(ContextCompacted.class, Set.of("throughSeq", "summary")),
            Map.entry(StepCompleted.class, Set.of("step")),
            Map.entry(SessionClaimed.class, Set.of("workerId", "epoch", "harnessVersion")),
            Map.entry(SessionResumed.class, Set.of("reason")),
            Map.entry(SessionMigrated.class, Set.of("fromVersion", "toVersion")),
            Map.entry(SessionForked.class, Set.of("parentSessionId", "atSeq", "modelId", "harnessVersion", "toolMode")),
            Map.entry(SubagentResult.class, Set.of("childSessionId")),
            Map.entry(ToolOutcomeResolved.class, Set.of("callId", "resolution", "approver")),
            Map.entry(ToolCallStarted.class, Set.of("callId", "idempotencyKey", "attempt")),
            Map.entry(FrameworkState.class, Set.of("framework", "kind", "key", "content")),
            Map.entry(ToolCall.class, Set.of("callId", "tool")),
            Map.entry(PlanItem.class, Set.of("text")),
            Map.entry(HarnessTool.class, Set.of("name")),
            Map.entry(AuthorizationBasis.class, Set.of("kind")));

    /**
     * The fields an event read back may lack, per payload record: those that may be null (an answer leaves nulls out),
     * and {@code harnessTools} when none were declared ({@link EventJson#write}). Every other field is always there.
     */
    static final Map<Class<?>, Set<String>> ABSENT_FROM_ANSWERS = Map.ofEntries(
            Map.entry(SessionStarted.class, Set.of("tokenBudget", "parentSessionId", "harnessTools", "parentStartedAt")),
            Map.entry(UserMessage.class, Set.of("contentRef")),
            Map.entry(AssistantMessage.class, Set.of("contentRef")),
            Map.entry(ApprovalRequested.class, Set.of("shownRef", "shownSha256")),
            Map.entry(ApprovalGranted.class, Set.of("tool", "pathGlob")),
            Map.entry(ApprovalDenied.class, Set.of("tool", "pathGlob", "expired")),
            Map.entry(ToolResult.class, Set.of("artifact")),
            Map.entry(FrameworkState.class, Set.of("artifact")),
            Map.entry(ContextCompacted.class, Set.of("summaryRef")),
            Map.entry(StepCompleted.class, Set.of("evidence")),
            Map.entry(SessionForked.class, Set.of("harnessTools", "parentEventId", "parentEventAt", "tokenBudget")),
            Map.entry(SubagentResult.class, Set.of("parentStartedAt")),
            Map.entry(ToolCallStarted.class, Set.of("externalKey")),
            Map.entry(AuthorizationBasis.class, Set.of("approvalSeq", "pathGlob", "shownSha256")));

    /** The records inside events: each of their fields is always there in an answer, unless named above. */
    static final List<Class<?>> NESTED = List.of(ToolCall.class, PlanItem.class, HarnessTool.class, AuthorizationBasis.class,
            dev.tether.core.event.TokenUsage.class, dev.tether.core.blob.BlobRef.class, Actor.class);

    private EventSchemas() {}

    /** The tables above, for {@code schemas} to apply. */
    static void describe(ApiSchemas schemas) {
        REQUIRED_ON_REQUEST.forEach(schemas::requiredOnRequest);
        schemas.describe(AuthorizationBasis.class, "approvalSeq", "the seq of the grant it rests on; required when kind is APPROVAL");
        schemas.describe(AuthorizationBasis.class, "shownSha256", "for the approval of a call an approver was shown, the SHA-256 "
                + "of what they were shown (approval_requested's shownSha256): the executor works it out again right before the call "
                + "starts and refuses the call if it differs");
        schemas.describe(ApprovalRequested.class, "shownSha256", "the SHA-256 (lower-case hex) of what the tool worked out to show, "
                + "before it was scrubbed or offloaded; the call's grant carries it, and the executor runs the call only if the tool "
                + "shows the same right before it starts");
        schemas.describe(AuthorizationBasis.class, "pathGlob", "for a call a session grant with a path glob covers, that glob: the "
                + "executor checks the call's path against it again right before the call starts, and refuses it if the path, as "
                + "written or where it leads in the workspace then, falls outside");
        schemas.describe(HarnessTool.class, "name", "the tool's name as a call's tool names it, or * for every tool the declaration does "
                + "not name (at most one; a name wins over it)");
        schemas.describe(FrameworkState.class, "content", "JSON text that parses as one JSON value; when artifact is set, only its "
                + "preview (GET /v1/artifacts/{sha256} serves the whole)");
        schemas.describe(SessionForked.class, "parentEventId", "the eventId of the parent's event at atSeq; with parentEventAt, which "
                + "session of that id was forked (an erased session's id may be used again); absent in a fork made before it was recorded");
        schemas.describe(SessionForked.class, "parentEventAt", "when the sequencer accepted the parent's event at atSeq (its "
                + "occurredAt); absent in a fork made before it was recorded");
        schemas.describe(SessionStarted.class, "parentSessionId", "a subagent's: the session it was started under; required with "
                + "parentStartedAt");
        schemas.describe(SessionStarted.class, "parentStartedAt", "a subagent's: when the sequencer accepted its parent's first "
                + "event, which tells the parent it was started under from a later session made under its id after an erasure; set by "
                + "POST /v1/sessions/{id}/subagents; absent when not a subagent, or not recorded");
        schemas.describe(ToolCallStarted.class, "externalKey", "the key the harness handed the tool for this attempt, by which its "
                + "reconciliation looks the effect up: <idempotencyKey>~<the occurredAt of the session's seq 1, in epoch milliseconds>, "
                + "which a session made again under an erased session's id does not repeat; the sequencer refuses another; absent from "
                + "a harness before it, which handed idempotencyKey");
        schemas.describe(SubagentResult.class, "parentStartedAt", "the child's parentStartedAt: a later session under the parent's "
                + "id refuses the result; absent when the child did not record it");
        for (Class<?> nested : NESTED) {
            schemas.absentFromAnswers(nested, ABSENT_FROM_ANSWERS.getOrDefault(nested, Set.of()));
        }
        for (String wireName : EventTypes.wireNames()) {
            Class<? extends EventPayload> type = EventTypes.byWireName(wireName).orElseThrow();
            schemas.absentFromAnswers(type, ABSENT_FROM_ANSWERS.getOrDefault(type, Set.of()));
        }
    }

    /** Defines {@code Event}, {@code NewEvent} and one component of each per type; both tables must be applied first. */
    static void define(ApiSchemas schemas) {
        Schema events = union();
        Schema newEvents = union();
        for (String wireName : EventTypes.wireNames()) {
            Class<? extends EventPayload> type = EventTypes.byWireName(wireName).orElseThrow();
            String name = type.getSimpleName() + "Event";
            events.addOneOf(schemas.define(name, answered(schemas, type, wireName)));
            events.getDiscriminator().addMapping(wireName, ApiSchemas.ref(name).getRef());
            newEvents.addOneOf(schemas.define("New" + name, sent(schemas, type, wireName)));
            newEvents.getDiscriminator().addMapping(wireName, ApiSchemas.ref("New" + name).getRef());
        }
        schemas.define(EVENT, events.description("An event as read back: its envelope (seq, eventId, type, sessionId, occurredAt, "
                + "actor, harnessVersion, traceId where one was recorded) and its payload fields (docs/ARCHITECTURE.md §4)."));
        schemas.define(NEW_EVENT, newEvents.description("An event a client appends: eventId (chosen by the client; sending it again "
                + "appends nothing), type, and the payload fields of that type (docs/ARCHITECTURE.md §4). No other field is accepted. "
                + "Every type is described; the events endpoint refuses those only Tether writes, and a session's first event "
                + "(session_started, session_forked), which POST /v1/sessions, /v1/sessions/{id}/subagents and /v1/sessions/{id}/fork "
                + "write."));
    }

    private static Schema union() {
        return OASFactory.createSchema().discriminator(OASFactory.createDiscriminator().propertyName("type"));
    }

    private static Schema answered(ApiSchemas schemas, Class<? extends EventPayload> type, String wireName) {
        Schema payload = schemas.object(type, ApiSchemas.Use.ANSWER);
        Schema event = OASFactory.createSchema().addType(SchemaType.OBJECT)
                .description("An event of type " + wireName + " as read back.");
        var properties = new LinkedHashMap<String, Schema>();
        properties.put("seq", OASFactory.createSchema().addType(SchemaType.INTEGER).format("int64").minimum(java.math.BigDecimal.ONE));
        properties.put("eventId", string());
        properties.put("type", wireName(wireName));
        properties.put("sessionId", string());
        properties.put("occurredAt", string().format("date-time").description("when the sequencer accepted it"));
        properties.put("actor", ApiSchemas.ref("Actor"));
        properties.put("harnessVersion", string().addType(SchemaType.NULL)
                .description("the session's harness version when it was appended"));
        var required = new ArrayList<>(properties.keySet());
        properties.put("traceId", string().pattern("^[0-9a-f]{32}$").description("the W3C trace id of the trace the sequencer "
                + "appended it in (its record's traceparent); absent when none was recorded"));
        payload.getProperties().forEach((field, schema) -> {
            if (!field.equals("type")) {
                properties.putIfAbsent(field, schema);
            }
        });
        if (payload.getRequired() != null) {
            payload.getRequired().stream().filter(f -> !required.contains(f)).forEach(required::add);
        }
        return event.properties(properties).required(required);
    }

    private static Schema sent(ApiSchemas schemas, Class<? extends EventPayload> type, String wireName) {
        Schema payload = schemas.object(type, ApiSchemas.Use.REQUEST);
        var properties = new LinkedHashMap<String, Schema>();
        properties.put("eventId", string().description("chosen by the client: 1-128 letters, digits, '.', '_' or '-'"));
        properties.put("type", wireName(wireName));
        Set<String> serverSet = EventJson.serverSetFields(type);
        payload.getProperties().forEach((field, schema) -> {
            if (!serverSet.contains(field) && !field.equals("type")) {
                properties.put(field, schema);
            }
        });
        var required = new ArrayList<>(List.of("eventId", "type"));
        if (payload.getRequired() != null) {
            required.addAll(payload.getRequired());
        }
        return OASFactory.createSchema().addType(SchemaType.OBJECT).description("An event of type " + wireName + " to append.")
                .properties(properties).required(required).additionalPropertiesBoolean(false);
    }

    private static Schema string() {
        return OASFactory.createSchema().addType(SchemaType.STRING);
    }

    private static Schema wireName(String wireName) {
        return string().enumeration(List.of(wireName));
    }
}
