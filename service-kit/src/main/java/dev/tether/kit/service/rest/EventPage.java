package dev.tether.kit.service.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.core.event.Event;
import dev.tether.kit.json.EventJson;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import dev.tether.kit.service.openapi.ApiField;
import dev.tether.kit.service.openapi.ApiType;

/**
 * The one contract of {@code GET /v1/sessions/{id}/events} (the session-service's, and the projector's, which a fork's
 * context reads its parent's events from): query {@code fromSeq} (default 1) and {@code limit} (default
 * {@value #DEFAULT_LIMIT}, at most the service's page size), answer {@code {events, lastSeq, nextSeq}}.
 *
 * @param events  the session's events from {@code fromSeq} on, in order, at most {@code limit}; never null
 * @param lastSeq the session's last seq (0 for no session)
 * @param nextSeq where the next page starts: the seq after the last event returned, or {@code fromSeq} when none
 *                was; a reader has read through {@code lastSeq} (or its own upper bound) once {@code nextSeq} is past it
 */
@ApiType(description = "A page of a session's events: at most limit of them from fromSeq, the session's lastSeq, and the "
        + "nextSeq to ask for next (past lastSeq once the log is read through).")
public record EventPage(List<Event> events, long lastSeq, long nextSeq) {

    /** The page size when a request names none. */
    public static final int DEFAULT_LIMIT = 100;

    public EventPage {
        events = List.copyOf(events);
    }

    /**
     * The checked query of a page.
     *
     * @param fromSeq the first seq wanted, at least 1
     * @param limit   the most events wanted, from 1 to the service's page size
     */
    public record Query(long fromSeq, int limit) {

        /**
         * The query from the parameters as {@link StrictInput} read them (null when absent).
         *
         * @throws ApiException 400 naming {@code fromSeq} or {@code limit} when out of range
         */
        public static Query of(Long fromSeq, Integer limit, int maxPageSize) {
            long from = fromSeq == null ? 1 : fromSeq;
            if (from < 1) {
                throw ApiException.badRequest("fromSeq", "must be at least 1");
            }
            int size = limit == null ? DEFAULT_LIMIT : limit;
            if (size < 1 || size > maxPageSize) {
                throw ApiException.badRequest("limit", "must be from 1 to " + maxPageSize);
            }
            return new Query(from, size);
        }

        /** The last seq this page may hold: {@code limit} events on, and not past {@code upTo}. */
        public long lastWanted(long upTo) {
            return Math.min(upTo, fromSeq + limit - 1);
        }
    }

    /** The page of {@code events} read from {@code fromSeq} of a session whose last seq is {@code lastSeq}. */
    public static EventPage of(List<Event> events, long fromSeq, long lastSeq) {
        long next = events.isEmpty() ? fromSeq : events.get(events.size() - 1).seq() + 1;
        return new EventPage(events, lastSeq, next);
    }

    /** No events from {@code fromSeq}: the session is missing (or another tenant's). */
    public static EventPage none(long fromSeq) {
        return new EventPage(List.of(), 0, fromSeq);
    }

    /** The page as the API answers it. */
    public ObjectNode toJson(EventJson json) {
        ObjectNode out = json.mapper().createObjectNode();
        ArrayNode list = out.putArray("events");
        events.forEach(e -> list.add(json.write(e)));
        out.put("lastSeq", lastSeq);
        out.put("nextSeq", nextSeq);
        return out;
    }

    /**
     * A page as another instance answered the query from {@code fromSeq}, its events read for {@code tenantId} (the API
     * leaves the tenant out). The answer of a projector from before this contract ({@code {events, nextFromSeq}}, met
     * during a rolling upgrade) reads with {@code nextSeq} after its last event and {@code lastSeq} unknown,
     * {@link Long#MAX_VALUE}: read on until a page comes back empty, as its readers did.
     *
     * @throws IOException if {@code body} is not JSON
     */
    public static EventPage fromJson(EventJson json, byte[] body, long fromSeq, String tenantId) throws IOException {
        JsonNode page = json.mapper().readTree(body);
        var events = new ArrayList<Event>();
        for (JsonNode e : page.path("events")) {
            events.add(json.readEvent(e, tenantId));
        }
        EventPage read = of(events, fromSeq, page.path("lastSeq").asLong(Long.MAX_VALUE));
        JsonNode next = page.get("nextSeq");
        return next != null && next.canConvertToLong() ? new EventPage(events, read.lastSeq(), next.asLong()) : read;
    }
}
