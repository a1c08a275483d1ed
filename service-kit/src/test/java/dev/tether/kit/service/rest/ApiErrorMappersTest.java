package dev.tether.kit.service.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonGenerationException;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidDefinitionException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link ApiErrorMappers#malformedJson}: JSON the client sent that cannot be read is its 400; a failure of this service's
 * own JSON (a type it cannot write, a response it cannot generate) is a 500 that is logged, never a 400 blaming the body.
 * {@link ApiErrorMappers#webApplication}: a client error the framework raised keeps a code that says its status.
 */
class ApiErrorMappersTest {

    private final ApiErrorMappers mappers = new ApiErrorMappers();

    @Test
    void aBodyThatIsNotJson_orNotTheExpectedShape_is400MalformedJson() throws Exception {
        var notJson = catchJson(() -> new ObjectMapper().readTree("{\"a\": "));
        var wrongShape = catchJson(() -> new ObjectMapper().readValue("\"text\"", Map.class));

        assertThat(notJson).isInstanceOf(JsonParseException.class);
        assertThat(wrongShape).isInstanceOf(MismatchedInputException.class);
        for (var e : new com.fasterxml.jackson.core.JsonProcessingException[] {notJson, wrongShape}) {
            var response = mappers.malformedJson(e);
            assertThat(response.getStatus()).as("%s", e.getClass().getSimpleName()).isEqualTo(400);
            assertThat(((Map<?, ?>) response.getEntity()).get("error")).isEqualTo("malformed_json");
        }
    }

    @Test
    void aFailureOfTheServicesOwnJson_is500Internal_notTheClientsFault() {
        var definition = InvalidDefinitionException.from((com.fasterxml.jackson.core.JsonGenerator) null,
                "No serializer found for class Widget", (JavaType) null);
        var generation = new JsonGenerationException("Can not write a field name, expecting a value",
                (com.fasterxml.jackson.core.JsonGenerator) null);

        for (var e : new com.fasterxml.jackson.core.JsonProcessingException[] {definition, generation}) {
            var response = mappers.malformedJson(e);
            assertThat(response.getStatus()).as("%s", e.getClass().getSimpleName()).isEqualTo(500);
            assertThat(((Map<?, ?>) response.getEntity()).get("error")).isEqualTo("internal");
        }
    }

    @Test
    void aClientErrorTheFrameworkRaised_isAnsweredWithTheCodeOfItsStatus_notBadRequest() {
        var codes = Map.of(400, "bad_request", 401, "unauthorized", 403, "forbidden", 404, "not_found", 409, "conflict",
                413, "too_large", 429, "too_many_requests");

        codes.forEach((status, code) -> {
            var response = mappers.webApplication(new jakarta.ws.rs.WebApplicationException(status));
            assertThat(response.getStatus()).isEqualTo(status);
            assertThat(((Map<?, ?>) response.getEntity()).get("error")).as("status %d", status).isEqualTo(code);
        });
    }

    private interface JsonCall {
        void run() throws Exception;
    }

    private static com.fasterxml.jackson.core.JsonProcessingException catchJson(JsonCall call) throws Exception {
        try {
            call.run();
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return e;
        }
        throw new AssertionError("no JSON failure");
    }
}
