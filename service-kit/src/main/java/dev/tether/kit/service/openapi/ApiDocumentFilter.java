package dev.tether.kit.service.openapi;

import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;

/**
 * The error answers every operation of the API ({@code /v1/...}) can give, added to each so that no resource can forget
 * them: 401 (no valid token), 403 (a role that may not call it), 503 with {@code Retry-After} (state restoring or
 * moving, a verdict or the registry late), and 415 for an operation that takes a body. They replace the bodiless 401 and
 * 403 Quarkus adds to a secured operation; and drops SmallRye's schemas of Jackson trees. Set as {@code mp.openapi.filter}
 * in service-kit's {@code microprofile-config.properties}.
 */
public class ApiDocumentFilter implements OASFilter {

    /**
     * What SmallRye describes of the Jackson trees the resources return: no operation uses them (their answers are the
     * components the annotations name), and they refer to each other, which keeps SmallRye's removal of unused schemas
     * from dropping them. A document that still referred to one would fail its check of dangling references.
     */
    private static final List<String> JACKSON_TREES = List.of("ObjectNode", "ArrayNode", "JsonNode", "JsonNodeType");

    @Override
    public void filterOpenAPI(OpenAPI api) {
        if (api.getComponents() != null && api.getComponents().getSchemas() != null) {
            JACKSON_TREES.forEach(api.getComponents()::removeSchema);
        }
        if (api.getPaths() == null || api.getPaths().getPathItems() == null) {
            return;
        }
        api.getPaths().getPathItems().forEach((path, item) -> {
            if (path.startsWith("/v1/")) {
                item.getOperations().values().forEach(ApiDocumentFilter::addSharedAnswers);
            }
        });
    }

    private static void addSharedAnswers(Operation operation) {
        var answers = operation.getResponses();
        if (answers == null) {
            answers = OASFactory.createAPIResponses();
            operation.responses(answers);
        }
        var shared = new java.util.LinkedHashMap<String, String>();
        shared.put("401", ApiDocument.UNAUTHORIZED);
        shared.put("403", ApiDocument.FORBIDDEN);
        if (operation.getRequestBody() != null) {
            shared.put("415", ApiDocument.UNSUPPORTED_MEDIA_TYPE);
        }
        shared.put("503", ApiDocument.UNAVAILABLE);
        for (Map.Entry<String, String> answer : shared.entrySet()) {
            answers.addAPIResponse(answer.getKey(), OASFactory.createAPIResponse().ref(answer.getValue()));
        }
    }
}
