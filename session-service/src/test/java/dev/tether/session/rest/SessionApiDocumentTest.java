package dev.tether.session.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.core.event.InvalidEventException;
import dev.tether.kit.json.EventJson;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The request bodies the session-service's OpenAPI document describes are the ones its records read: a body with every
 * documented property is read; leaving out a property the document requires is refused naming it, leaving out any
 * other is not (nested ones too); a property the document does not have is refused.
 */
class SessionApiDocumentTest {

    private static final EventJson JSON = new EventJson();
    private static final OpenAPI DOCUMENT = new SessionApiDocument().buildModel();

    private record Request(Class<?> type, String sample) {}

    private static final Map<String, Request> REQUESTS = Map.of(
            "CreateSession", new Request(Requests.CreateSession.class, """
                    {"objective": "o", "systemPrompt": "s", "modelId": "m", "toolMode": "WRITE", "constraints": ["c"],
                     "harnessVersion": "v1", "tokenBudget": 100, "sessionId": "s-1", "eventId": "e-1",
                     "harnessTools": [{"name": "t", "mutating": true, "canReconcile": false, "recordedOnly": false}]}"""),
            "AppendEvents", new Request(Requests.AppendEvents.class, """
                    {"events": [{"eventId": "e-1", "type": "user_message", "content": "x"}], "expectedSeq": 1, "epoch": 1,
                     "sessionStartedAt": "2026-12-06T00:30:00.123Z"}"""),
            "Claim", new Request(Requests.Claim.class, """
                    {"workerId": "w", "harnessVersion": "v1", "rollout": true, "requestId": "r-1"}"""),
            "Migrate", new Request(Requests.Migrate.class, "{\"toVersion\": \"v2\", \"requestId\": \"r-1\"}"),
            "CreateSubagent", new Request(Requests.Subagent.class, """
                    {"objective": "o", "toolMode": "READ_ONLY", "tokenBudget": 10, "systemPrompt": "s", "constraints": ["c"],
                     "sessionId": "c-1", "eventId": "e-1",
                     "harnessTools": [{"name": "t", "mutating": false, "canReconcile": true, "recordedOnly": false}]}"""),
            "Fork", new Request(Requests.Fork.class, "{\"atSeq\": 2, \"sessionId\": \"f-1\", \"eventId\": \"e-1\", \"tokenBudget\": 10}"),
            "HarnessVersion", new Request(Requests.HarnessVersionEntry.class, """
                    {"version": "v2", "weight": 10, "state": "DRAINING", "modelId": "m"}"""));

    private static Schema resolve(Schema schema) {
        Schema at = schema;
        while (at.getRef() != null) {
            at = DOCUMENT.getComponents().getSchemas().get(at.getRef().substring("#/components/schemas/".length()));
        }
        return at;
    }

    private static JsonNode sample(String component) throws Exception {
        return JSON.mapper().readTree(REQUESTS.get(component).sample());
    }

    @SuppressWarnings("deprecation") // getAdditionalPropertiesBoolean: ApiSchemas sets it, with MicroProfile's setter of the same kind
    @ParameterizedTest
    @ValueSource(strings = {"CreateSession", "AppendEvents", "Claim", "Migrate", "CreateSubagent", "Fork", "HarnessVersion"})
    void aRequestWithEveryDocumentedProperty_isRead_andEachPropertyIsRequiredExactlyWhenTheDocumentSaysSo(String component)
            throws Exception {
        Request request = REQUESTS.get(component);
        JsonNode full = sample(component);
        assertThatCode(() -> JSON.read(full, request.type())).doesNotThrowAnyException();
        for (Omission omission : omissions(full, DOCUMENT.getComponents().getSchemas().get(component), "")) {
            JsonNode without = full.deepCopy();
            ((ObjectNode) without.at(omission.parent())).remove(omission.field());
            if (omission.required()) {
                var refused = catchThrowableOfType(InvalidEventException.class, () -> JSON.read(without, request.type()));
                assertThat(refused).as("%s.%s is documented as required", component, omission.path()).isNotNull();
                assertThat(refused.field()).contains(omission.field());
            } else {
                assertThatCode(() -> JSON.read(without, request.type())).as("%s.%s is documented as optional", component, omission.path())
                        .doesNotThrowAnyException();
            }
        }
        ObjectNode unknown = ((ObjectNode) full.deepCopy()).put("surprise", 1);
        assertThat(resolve(DOCUMENT.getComponents().getSchemas().get(component)).getAdditionalPropertiesBoolean()).isFalse();
        assertThat(catchThrowableOfType(InvalidEventException.class, () -> JSON.read(unknown, request.type()))).isNotNull();
    }

    private record Omission(String parent, String field, String path, boolean required) {}

    /** Every documented property present in {@code json}, nested ones too (the first element of a list); the sample must have them all. */
    private List<Omission> omissions(JsonNode json, Schema given, String pointer) {
        var found = new ArrayList<Omission>();
        Schema schema = resolve(given);
        if (schema.getProperties() != null) {
            List<String> required = schema.getRequired() == null ? List.of() : schema.getRequired();
            schema.getProperties().forEach((name, property) -> {
                assertThat(json.has(name)).as("the sample has the documented %s%s", pointer, name).isTrue();
                if (pointer.isEmpty() && name.equals("events")) {
                    found.add(new Omission(pointer, name, name, required.contains(name)));
                    return; // the events themselves: EventSchemasTest (service-kit)
                }
                found.add(new Omission(pointer, name, (pointer + "/" + name).substring(1), required.contains(name)));
                JsonNode value = json.get(name);
                Schema items = resolve(property).getItems();
                if (value instanceof ArrayNode array && items != null && !array.isEmpty() && resolve(items).getProperties() != null) {
                    found.addAll(omissions(array.get(0), items, pointer + "/" + name + "/0"));
                }
            });
        }
        return found;
    }
}
