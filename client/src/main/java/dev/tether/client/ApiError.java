package dev.tether.client;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A service's error answer: the HTTP status and the JSON body every Tether service sends,
 * {@code {"error": code, "message": ..., ...details}}. Codes are stable snake_case strings
 * ({@code invalid_field}, {@code seq_conflict}, {@code stale_epoch}, {@code version_pinned},
 * {@code illegal_event}, {@code session_closed}, {@code budget_exceeded}, {@code not_found},
 * {@code unauthorized}, {@code forbidden}, {@code too_large}, {@code unavailable} …); a body that is
 * not such JSON (a proxy's error page) reads as code {@code http_<status>}, its title or first words (up to 200
 * characters) the message.
 *
 * @param status  the HTTP status
 * @param code    the {@code error} code, never null
 * @param message the explanation, never null (possibly empty)
 * @param details the other fields of the body (such as {@code field}, {@code lastSeq}, {@code epoch}), as
 *                String, Long, Double or Boolean values; never null
 */
public record ApiError(int status, String code, String message, Map<String, Object> details) {

    public ApiError {
        Objects.requireNonNull(code, "code");
        message = message == null ? "" : message;
        details = Map.copyOf(details);
    }

    /** The request field the service names as wrong, e.g. {@code events[1].toolCalls[0].callId}. */
    public Optional<String> field() {
        return details.get("field") instanceof String s ? Optional.of(s) : Optional.empty();
    }

    /** A numeric detail, such as {@code lastSeq} or {@code epoch}. */
    public OptionalLong longDetail(String name) {
        return details.get(name) instanceof Long l ? OptionalLong.of(l) : OptionalLong.empty();
    }

    @Override
    public String toString() {
        return status + " " + code + (message.isEmpty() ? "" : ": " + message) + (details.isEmpty() ? "" : " " + details);
    }
}
