package dev.tether.kit.service.rest;

import jakarta.ws.rs.core.Response;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A refusal with the JSON body the client gets: {@code {"error": code, ...details}}. Codes are
 * stable snake_case strings clients can switch on. Details never carry request content (it may
 * hold secrets), only names, numbers and explanations.
 */
public class ApiException extends RuntimeException {

    private final int status;
    private final Map<String, Object> body;
    private final Map<String, String> headers;

    public ApiException(int status, String code, String message) {
        this(status, code, message, Map.of(), Map.of());
    }

    private ApiException(int status, String code, String message, Map<String, Object> details, Map<String, String> headers) {
        super(code + (message == null ? "" : ": " + message));
        this.status = status;
        var b = new LinkedHashMap<String, Object>();
        b.put("error", code);
        if (message != null) {
            b.put("message", message);
        }
        b.putAll(details);
        this.body = Map.copyOf(b);
        this.headers = Map.copyOf(headers);
    }

    /** The same refusal with one more detail in its body, e.g. {@code lastSeq}. */
    public ApiException with(String key, Object value) {
        var details = new LinkedHashMap<>(body);
        details.remove("error");
        details.remove("message");
        details.put(key, value);
        return new ApiException(status, (String) body.get("error"), (String) body.get("message"), details, headers);
    }

    /** The same refusal with a response header, e.g. {@code Retry-After}. */
    public ApiException withHeader(String name, String value) {
        var h = new LinkedHashMap<>(headers);
        h.put(name, value);
        var details = new LinkedHashMap<>(body);
        details.remove("error");
        details.remove("message");
        return new ApiException(status, (String) body.get("error"), (String) body.get("message"), details, h);
    }

    public static ApiException badRequest(String field, String message) {
        return new ApiException(400, "invalid_field", message).with("field", field);
    }

    /** Unknown, or another tenant's: the same answer, so existence does not leak. */
    public static ApiException notFound(String what) {
        return new ApiException(404, "not_found", what + " not found");
    }

    public static ApiException unavailable(String message, int retryAfterSeconds) {
        return new ApiException(503, "unavailable", message).withHeader("Retry-After", Integer.toString(retryAfterSeconds));
    }

    public int status() {
        return status;
    }

    public Map<String, Object> body() {
        return body;
    }

    /** The response headers it adds, e.g. {@code Retry-After}. */
    public Map<String, String> headers() {
        return headers;
    }

    public Response toResponse() {
        var response = Response.status(status).type("application/json").entity(body);
        headers.forEach(response::header);
        return response.build();
    }
}
