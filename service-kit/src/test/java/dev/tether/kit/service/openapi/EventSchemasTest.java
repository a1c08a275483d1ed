package dev.tether.kit.service.openapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventTypes;
import dev.tether.core.event.InvalidEventException;
import dev.tether.kit.json.EventJson;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The documented events are the events {@link EventJson} reads and writes: for every type, a client's event with every
 * documented field is accepted; leaving out a field the document requires is refused naming it, and leaving out any
 * other is accepted; the event read back carries exactly documented fields, of their documented types, the required ones
 * always. A new event type fails {@link #everyEventType_hasASample} until it has a sample here, and then these tests
 * hold its tables in {@link EventSchemas} to what the code does.
 */
class EventSchemasTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final EventJson EVENTS = new EventJson();
    private static final OpenAPI DOCUMENT = new ApiDocument().buildModel();
    private static final SchemaCheck CHECK = new SchemaCheck(DOCUMENT.getComponents().getSchemas());

    /** Every field a client may send, per type (eventId and type are added). */
    private static final Map<String, String> SAMPLES = samples();

    /**
     * Fields the document lists as optional that a record requires only with another value: {@code basis.approvalSeq}
     * for an APPROVAL basis, a subagent's {@code parentSessionId} with its {@code parentStartedAt} (their descriptions say
     * so).
     */
    private static final Set<String> CONDITIONAL = Set.of("tool_call_authorized basis.approvalSeq", "session_started parentSessionId");

    private static Map<String, String> samples() {
        var s = new LinkedHashMap<String, String>();
        s.put("session_started", """
                {"objective": "o", "systemPrompt": "s", "modelId": "m", "harnessVersion": "v1", "toolMode": "WRITE",
                 "constraints": ["c"], "tokenBudget": 1000, "parentSessionId": "p",
                 "harnessTools": [{"name": "t", "mutating": true, "canReconcile": true, "recordedOnly": false}],
                 "parentStartedAt": "2026-12-01T09:00:00.007Z"}""");
        s.put("user_message", "{\"content\": \"hi\"}");
        s.put("assistant_message", """
                {"content": "x", "toolCalls": [{"callId": "c1", "tool": "read_file", "argumentsJson": "{}"}],
                 "usage": {"inputTokens": 1, "outputTokens": 2}}""");
        s.put("approval_requested", "{\"callId\": \"c1\", \"tool\": \"t\", \"shown\": \"s\", \"shownSha256\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}");
        s.put("approval_granted", """
                {"callId": "c1", "scope": "SESSION", "tool": "t", "pathGlob": "src/**", "approver": "a", "reason": "r"}""");
        s.put("approval_denied", """
                {"callId": "c1", "scope": "ONCE", "tool": "t", "pathGlob": "p", "approver": "a", "reason": "r"}""");
        s.put("tool_call_authorized", "{\"callId\": \"c1\", \"basis\": {\"kind\": \"APPROVAL\", \"approvalSeq\": 3, \"pathGlob\": \"src/**\","
                + " \"shownSha256\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}}");
        s.put("tool_result", "{\"callId\": \"c1\", \"idempotencyKey\": \"s/1/c1\", \"status\": \"OK\", \"content\": \"done\"}");
        s.put("turn_interrupted", "{\"partialText\": \"p\", \"reason\": \"r\"}");
        s.put("context_compacted", "{\"throughSeq\": 3, \"summary\": \"s\", \"summarySourceSeqs\": [1, 2]}");
        s.put("plan_updated", "{\"items\": [{\"text\": \"t\", \"status\": \"DONE\"}]}");
        s.put("step_completed", "{\"step\": 1, \"note\": \"n\", \"verified\": true, \"evidence\": \"e\"}");
        s.put("session_claimed", "{\"workerId\": \"w\", \"epoch\": 1, \"harnessVersion\": \"v1\"}");
        s.put("session_resumed", "{\"reason\": \"CRASH\", \"fromSeq\": 3, \"reconciliation\": \"r\"}");
        s.put("session_migrated", "{\"fromVersion\": \"v1\", \"toVersion\": \"v2\"}");
        s.put("session_forked", """
                {"parentSessionId": "p", "atSeq": 2, "objective": "o", "systemPrompt": "s", "modelId": "m", "harnessVersion": "v1",
                 "toolMode": "READ_ONLY", "constraints": ["c"],
                 "harnessTools": [{"name": "t", "mutating": false, "canReconcile": false, "recordedOnly": true}],
                 "parentEventId": "e2", "parentEventAt": "2026-12-01T09:59:00.123Z", "tokenBudget": 700}""");
        s.put("subagent_result", "{\"childSessionId\": \"c\", \"outcome\": \"o\", \"parentStartedAt\": \"2026-12-01T09:00:00.007Z\"}");
        s.put("session_closed", "{\"outcome\": \"o\"}");
        s.put("tool_outcome_resolved", "{\"callId\": \"c1\", \"resolution\": \"RETRY\", \"approver\": \"a\", \"reason\": \"r\"}");
        s.put("tool_call_started", "{\"callId\": \"c1\", \"idempotencyKey\": \"k\", \"epoch\": 2, \"attempt\": 1, \"externalKey\": \"k~1796119200000\"}");
        s.put("framework_state", """
                {"framework": "langgraph", "kind": "checkpoint", "key": "[\\"\\",\\"cp-1\\"]", "content": "{\\"v\\":1}"}""");
        return s;
    }

    static Stream<String> wireNames() {
        return EventTypes.wireNames().stream();
    }

    private static ObjectNode sample(String type) throws Exception {
        ObjectNode event = JSON.createObjectNode().put("eventId", "e-1").put("type", type);
        event.setAll((ObjectNode) JSON.readTree(SAMPLES.get(type)));
        return event;
    }

    private static Schema sent(String type) {
        return CHECK.resolve(DOCUMENT.getComponents().getSchemas().get(EventSchemas.NEW_EVENT).getOneOf().stream()
                .map(CHECK::resolve).filter(s -> s.getProperties().get("type").getEnumeration().contains(type)).findFirst().orElseThrow());
    }

    private static JsonNode readBack(JsonNode sent) {
        return readBack(sent, null);
    }

    /** The event {@code sent} as it is read back, recorded in the trace {@code traceId} (null: none recorded). */
    private static JsonNode readBack(JsonNode sent, String traceId) {
        EventJson.Proposal proposal = EVENTS.readProposal(sent);
        return EVENTS.write(new Event(proposal.eventId(), "s-1", "acme", 7, Instant.parse("2026-12-01T10:00:00Z"),
                new Actor(ActorKind.USER, "u"), "v1", proposal.payload(), traceId));
    }

    @Test
    void everyEventType_hasASample() {
        assertThat(SAMPLES.keySet()).containsExactlyInAnyOrderElementsOf(EventTypes.wireNames());
    }

    @Test
    void theUnions_haveOneMemberPerType_discriminatedByType() {
        for (String union : List.of(EventSchemas.EVENT, EventSchemas.NEW_EVENT)) {
            Schema schema = DOCUMENT.getComponents().getSchemas().get(union);
            assertThat(schema.getOneOf()).hasSize(EventTypes.wireNames().size());
            assertThat(schema.getDiscriminator().getPropertyName()).isEqualTo("type");
            assertThat(schema.getDiscriminator().getMapping().keySet()).containsExactlyElementsOf(EventTypes.wireNames());
        }
    }

    /** The sample holds every documented property (nested ones too), and is accepted as the document says. */
    @ParameterizedTest
    @MethodSource("wireNames")
    void aClientsEvent_withEveryDocumentedField_isAccepted_andFitsTheDocument(String type) throws Exception {
        ObjectNode sample = sample(type);
        assertThat(CHECK.problems(sample, sent(type))).isEmpty();
        assertThatCode(() -> EVENTS.readProposal(sample)).doesNotThrowAnyException();
        assertThat(undocumentedInSample(sample, sent(type), "")).as("documented properties the sample lacks").isEmpty();
    }

    private List<String> undocumentedInSample(JsonNode json, Schema given, String at) {
        var missing = new ArrayList<String>();
        Schema schema = CHECK.resolve(given);
        if (schema.getProperties() != null && json.isObject()) {
            schema.getProperties().forEach((name, property) -> {
                if (!json.has(name)) {
                    missing.add(at + name);
                } else {
                    missing.addAll(undocumentedInSample(json.get(name), property, at + name + "."));
                }
            });
        } else if (schema.getItems() != null && json.isArray() && !json.isEmpty()) {
            missing.addAll(undocumentedInSample(json.get(0), schema.getItems(), at));
        }
        return missing;
    }

    /** Leaving out a required field is a 400 naming it; leaving out any other field is accepted. Nested fields too. */
    @ParameterizedTest
    @MethodSource("wireNames")
    void leavingOutAField_isRefusedExactlyWhenTheDocumentRequiresIt(String type) throws Exception {
        ObjectNode sample = sample(type);
        for (Omission omission : omissions(sample, sent(type), "")) {
            ObjectNode without = sample.deepCopy();
            ((ObjectNode) without.at(omission.parent())).remove(omission.field());
            String name = type + " " + omission.path();
            if (CONDITIONAL.contains(name)) {
                continue;
            }
            if (omission.required()) {
                var refused = catchThrowableOfType(InvalidEventException.class, () -> EVENTS.readProposal(without));
                assertThat(refused).as("%s is documented as required, and the event without it was accepted", name).isNotNull();
                assertThat(refused.field()).as(name).contains(omission.field());
            } else {
                assertThatCode(() -> EVENTS.readProposal(without)).as("%s is documented as optional", name).doesNotThrowAnyException();
            }
        }
    }

    private record Omission(String parent, String field, String path, boolean required) {}

    private List<Omission> omissions(JsonNode json, Schema given, String pointer) {
        var found = new ArrayList<Omission>();
        Schema schema = CHECK.resolve(given);
        if (schema.getProperties() != null && json.isObject()) {
            List<String> required = schema.getRequired() == null ? List.of() : schema.getRequired();
            schema.getProperties().forEach((name, property) -> {
                if (json.has(name) && !name.equals("eventId") && !name.equals("type")) {
                    String path = (pointer.isEmpty() ? "" : pointer.substring(1).replace("/0", "").replace('/', '.') + ".") + name;
                    found.add(new Omission(pointer, name, path, required.contains(name)));
                    found.addAll(omissions(json.get(name), property, pointer + "/" + name));
                }
            });
        } else if (schema.getItems() != null && json.isArray() && !json.isEmpty()) {
            found.addAll(omissions(json.get(0), schema.getItems(), pointer + "/0"));
        }
        return found;
    }

    /** What a client may not send (the blob references, a denial's expired) is not in the document, and is refused. */
    @ParameterizedTest
    @MethodSource("wireNames")
    void theFieldsOnlyTetherSets_areNotDocumentedForClients_andAreRefused(String type) throws Exception {
        var payloadType = EventTypes.byWireName(type).orElseThrow();
        for (var component : payloadType.getRecordComponents()) {
            if (!EventJson.serverSetFields(payloadType).contains(component.getName())) {
                continue;
            }
            assertThat(sent(type).getProperties()).doesNotContainKey(component.getName());
            ObjectNode with = sample(type);
            with.put(component.getName(), "x");
            assertThat(catchThrowableOfType(InvalidEventException.class, () -> EVENTS.readProposal(with)).field())
                    .isEqualTo(component.getName());
        }
    }

    /**
     * An event read back fits its documented schema: every field it has is documented with its type, and every field
     * the document says is always there is there, for the fullest event a client can send and for the barest one.
     */
    @ParameterizedTest
    @MethodSource("wireNames")
    void anEventReadBack_fitsTheDocument_fullOrBare(String type) throws Exception {
        Schema event = DOCUMENT.getComponents().getSchemas().get(EventSchemas.EVENT);
        ObjectNode full = sample(type);
        JsonNode traced = readBack(full, "4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(traced.get("traceId").asText()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(CHECK.problems(traced, event)).isEmpty();
        ObjectNode bare = full.deepCopy();
        for (Omission omission : omissions(full, sent(type), "")) {
            if (!omission.required() && !CONDITIONAL.contains(type + " " + omission.path()) && bare.at(omission.parent()).isObject()) {
                ((ObjectNode) bare.at(omission.parent())).remove(omission.field());
            }
        }
        if (bare.path("basis").path("kind").asText().equals("APPROVAL") && !bare.path("basis").has("approvalSeq")) {
            ((ObjectNode) bare.get("basis")).put("approvalSeq", 3);
        }
        assertThat(CHECK.problems(readBack(bare), event)).as("the barest %s read back", type).isEmpty();
    }

    @Test
    void anUndocumentedField_orAWrongType_doesNotFit_soTheChecksAboveCanFail() throws Exception {
        ObjectNode event = (ObjectNode) readBack(sample("user_message"));
        Schema schema = DOCUMENT.getComponents().getSchemas().get(EventSchemas.EVENT);
        assertThat(CHECK.problems(event.deepCopy().put("surprise", 1), schema)).containsExactly("/surprise: not a documented property");
        assertThat(CHECK.problems(event.deepCopy().put("seq", "7"), schema)).hasSize(1);
        assertThat(CHECK.problems(event.deepCopy().put("traceId", 7), schema)).as("a trace id is a string").hasSize(1);
        ObjectNode withoutContent = event.deepCopy();
        withoutContent.remove("content");
        assertThat(CHECK.problems(withoutContent, schema)).containsExactly("/content: required, absent");
        ArrayNode notAnObject = JSON.createArrayNode();
        assertThat(CHECK.problems(notAnObject, schema)).isNotEmpty();
    }
}
