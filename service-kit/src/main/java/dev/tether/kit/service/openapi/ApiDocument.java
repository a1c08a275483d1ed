package dev.tether.kit.service.openapi;

import dev.tether.core.event.Actor;
import dev.tether.kit.service.rest.EventPage;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASModelReader;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.headers.Header;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.media.Schema.SchemaType;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;

/**
 * What every service's OpenAPI document ({@code /q/openapi}) starts from, before SmallRye adds the operations from the
 * resources' annotations: the components the annotations refer to by name. The events ({@link EventSchemas}), the error
 * body and the error answers every service shares (below), and each service's own request and answer types, which a
 * service names in its subclass ({@link #schemas}), set as {@code mp.openapi.model.reader} in its
 * {@code application.properties}. Each answer type is also a response of the same name, so an operation says
 * {@code @APIResponse(responseCode = "200", ref = "Appended")}. A service without an API of its own (the tool-executor) uses this class as it is
 * (service-kit's {@code microprofile-config.properties}).
 */
public class ApiDocument implements OASModelReader {

    /** The component of every error body. */
    public static final String ERROR = "Error";

    /** The shared error answers, by component name: each an {@link #ERROR} body, with its status in the description. */
    public static final String BAD_REQUEST = "BadRequest";
    public static final String UNAUTHORIZED = "Unauthorized";
    public static final String FORBIDDEN = "Forbidden";
    public static final String NOT_FOUND = "NotFound";
    public static final String CONFLICT = "Conflict";
    public static final String GONE = "Gone";
    public static final String TOO_LARGE = "TooLarge";
    public static final String UNSUPPORTED_MEDIA_TYPE = "UnsupportedMediaType";
    public static final String UNPROCESSABLE = "Unprocessable";
    public static final String UNAVAILABLE = "Unavailable";

    @Override
    public final OpenAPI buildModel() {
        ApiSchemas schemas = new ApiSchemas();
        EventSchemas.describe(schemas);
        schemas.define("Actor", Actor.class, ApiSchemas.Use.ANSWER);
        EventSchemas.define(schemas);
        schemas.define(ERROR, error());
        schemas.define("EventPage", EventPage.class, ApiSchemas.Use.ANSWER);
        schemas(schemas);
        var components = OASFactory.createComponents();
        schemas.components().forEach(components::addSchema);
        responses().forEach(components::addResponse);
        for (String answer : schemas.answers()) {
            String description = schemas.components().get(answer).getDescription();
            components.addResponse(answer, OASFactory.createAPIResponse().description(description == null ? answer : description)
                    .content(OASFactory.createContent().addMediaType("application/json",
                            OASFactory.createMediaType().schema(ApiSchemas.ref(answer)))));
        }
        return OASFactory.createOpenAPI().components(components);
    }

    /** Where a service defines the components of its own requests and answers. */
    protected void schemas(ApiSchemas schemas) {}

    private static Schema error() {
        return OASFactory.createSchema().addType(SchemaType.OBJECT)
                .description("Every error: a stable snake_case code clients switch on, an explanation, and details that never echo "
                        + "request content (ApiException, ApiErrorMappers).")
                .addProperty("error", string().description("the code, e.g. invalid_field, malformed_json, unauthorized, forbidden, "
                        + "not_found, seq_conflict, stale_epoch, version_pinned, already_decided, conflict, too_large, "
                        + "illegal_event, budget_exceeded, session_closed, unavailable"))
                .addProperty("message", string().description("what is wrong, for a person"))
                .addProperty("field", string().description("the field at fault (invalid_field, and refusals about one field), "
                        + "e.g. events[0].toolCalls[1].callId; (body) for the body as a whole"))
                .addProperty("lastSeq", integer().description("seq_conflict: the session's last seq"))
                .addProperty("epoch", integer().description("stale_epoch: the session's current epoch"))
                .required(List.of("error", "message"));
    }

    private static Map<String, APIResponse> responses() {
        var responses = new java.util.LinkedHashMap<String, APIResponse>();
        responses.put(BAD_REQUEST, error("400: a field, a parameter or the body is wrong (invalid_field naming it, malformed_json)"));
        responses.put(UNAUTHORIZED, error("401: no valid bearer token (unauthorized)")
                .addHeader("WWW-Authenticate", header(string(), "Bearer")));
        responses.put(FORBIDDEN, error("403: the caller's role, or the sequencer's writer rights, do not allow this (forbidden)"));
        responses.put(NOT_FOUND, error("404: no such thing in the caller's tenant; another tenant's answers the same (not_found)"));
        responses.put(CONFLICT, error("409: the state moved on (seq_conflict with lastSeq, stale_epoch with epoch, version_pinned, "
                + "model_pinned, already_decided, conflict)"));
        responses.put(GONE, error("410: what this read needs no longer exists (parent_gone: the session a fork was made from)"));
        responses.put(TOO_LARGE, error("413: the request is over the size limit (too_large)"));
        responses.put(UNSUPPORTED_MEDIA_TYPE, error("415: the body is not application/json (unsupported_media_type)"));
        responses.put(UNPROCESSABLE, error("422: the sequencer refused the command (illegal_event, budget_exceeded, session_closed, "
                + "...; field when one field is at fault)"));
        responses.put(UNAVAILABLE, error("503: state is restoring or moving, a verdict or the registry did not come in time; "
                + "nothing half-done, the same request may be sent again after Retry-After seconds (unavailable)")
                .addHeader("Retry-After", header(integer().format("int32"), "seconds to wait before trying again")));
        return responses;
    }

    private static APIResponse error(String description) {
        return OASFactory.createAPIResponse().description(description).content(OASFactory.createContent()
                .addMediaType("application/json", OASFactory.createMediaType().schema(ApiSchemas.ref(ERROR))));
    }

    private static Header header(Schema schema, String description) {
        return OASFactory.createHeader().schema(schema).description(description).required(true);
    }

    private static Schema string() {
        return OASFactory.createSchema().addType(SchemaType.STRING);
    }

    private static Schema integer() {
        return OASFactory.createSchema().addType(SchemaType.INTEGER).format("int64");
    }
}
