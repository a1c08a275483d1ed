package dev.tether.session.rest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.junit.jupiter.api.Test;

/**
 * The answers the resources' annotations document (the OpenAPI document is made from them) are the ones the operations
 * give.
 */
class SessionResourceAnswersTest {

    private static Map<String, APIResponse> answers(String method, Class<?>... parameters) throws Exception {
        return Arrays.stream(SessionResource.class.getDeclaredMethod(method, parameters).getAnnotationsByType(APIResponse.class))
                .collect(Collectors.toMap(APIResponse::responseCode, Function.identity()));
    }

    @Test
    void create_documentsIts404_forASessionIdAnotherTenantHolds_withTheErrorBody() throws Exception {
        Map<String, APIResponse> create = answers("create", byte[].class);

        assertThat(create).containsKeys("201", "400", "404", "409", "413", "422");
        APIResponse notFound = create.get("404");
        // session ids are one namespace: the id is taken, but by whom is not told (the answer of a missing session)
        assertThat(notFound.description()).contains("sessionId").contains("another tenant").contains("not_found");
        assertThat(notFound.content()).as("an error answer has the Error body").singleElement().satisfies(c -> {
            assertThat(c.mediaType()).isEqualTo("application/json");
            assertThat(c.schema().ref()).isEqualTo("Error");
        });
    }
}
