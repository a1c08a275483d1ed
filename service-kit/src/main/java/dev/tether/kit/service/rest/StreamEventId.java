package dev.tether.kit.service.rest;

import dev.tether.kit.json.EventJson;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * The {@code id} of an event on a session's live stream, and what a client that reconnects sends back as
 * {@code Last-Event-ID}: {@code <seq>@<sessionStartedAt>}, the event's seq and the instant (ISO-8601) its session
 * started. The start tells apart the sessions made under one id: a stream that ended because its session was erased,
 * and that reconnects after another session was made under the id, is refused (404) instead of going on with the other
 * session's events from the same seq. A bare {@code <seq>}, as a client that does not keep the id sends, is taken too;
 * then nothing tells the sessions apart. Immutable.
 *
 * @param seq              the seq of the last event received
 * @param sessionStartedAt when its session started, or null when the id does not say
 */
public record StreamEventId(long seq, Instant sessionStartedAt) {

    public static final String HEADER = "Last-Event-ID";

    /**
     * The query parameter of {@code GET /v1/sessions/{id}} that asks for the session only if it is the one that started
     * then; the relays of a live stream check a reconnect's session with it before they open the stream. The
     * session-service's events, a page or a live stream, take it too ({@link #ofRequest}).
     */
    public static final String START_PARAM = "sessionStartedAt";

    /** The query parameter's description in the services' API documents, on a session's events. */
    public static final String START_PARAM_DESCRIPTION = "the session's start, as its list, claim and appends answer it "
            + "(sessionStartedAt): 404 when the session under the id started at another instant (the one meant was erased "
            + "and another made under its id). On a live stream a Last-Event-ID that names a start takes precedence";

    /** The header's description in the services' API documents. */
    public static final String HEADER_DESCRIPTION = "with text/event-stream: the id of the last event received "
            + "(<seq>@<sessionStartedAt>, or a bare seq); the stream goes on after it, or answers 404 when that event's "
            + "session was erased (a session made under its id since is another one)";

    private static final String WANTED = "must be the id of the last event received: <seq> or <seq>@<sessionStartedAt>";

    /** The id of event {@code seq} of the session that started at {@code sessionStartedAt} (when not null). */
    public static String of(long seq, Instant sessionStartedAt) {
        return sessionStartedAt == null ? Long.toString(seq) : seq + "@" + sessionStartedAt;
    }

    /**
     * The {@code Last-Event-ID} a client sent, or null when it sent none (or a blank one).
     *
     * @throws ApiException 400 naming {@code Last-Event-ID} when it is neither form, or its seq is negative or the
     *                      largest there is (no event follows it)
     */
    public static StreamEventId parse(String header) {
        if (header == null || header.isBlank()) {
            return null;
        }
        String text = header.strip();
        int at = text.indexOf('@');
        Instant startedAt = at < 0 ? null : EventJson.instant(text.substring(at + 1));
        long seq;
        try {
            seq = Long.parseLong(at < 0 ? text : text.substring(0, at));
        } catch (NumberFormatException e) {
            seq = -1;
        }
        if (seq < 0 || seq == Long.MAX_VALUE || at >= 0 && startedAt == null) {
            throw ApiException.badRequest(HEADER, WANTED);
        }
        return new StreamEventId(seq, startedAt);
    }

    /**
     * Where a live stream request goes on after, and which session it wants: after its {@code Last-Event-ID} (a
     * reconnect), else before {@code fromSeq} (1 when absent); of the session that started as the header says, else as
     * {@code sessionStartedAt} says, else of whichever session has the id.
     *
     * @throws ApiException 400 naming {@code Last-Event-ID}, {@code fromSeq} (below 1) or {@code sessionStartedAt} (not
     *                      an instant)
     */
    public static StreamEventId ofRequest(String lastEventIdHeader, Long fromSeq, String startedAtParam) {
        StreamEventId last = parse(lastEventIdHeader);
        Instant startedAt = StrictInput.instantParam(startedAtParam, START_PARAM);
        if (last != null) {
            return last.sessionStartedAt != null || startedAt == null ? last : new StreamEventId(last.seq, startedAt);
        }
        if (fromSeq != null && fromSeq < 1) {
            throw ApiException.badRequest("fromSeq", "must be at least 1");
        }
        return new StreamEventId(fromSeq == null ? 0 : fromSeq - 1, startedAt);
    }

    /**
     * Throws 404 unless the session that started at {@code actual} can be the one that started at {@code wanted}: both
     * known and different (to the millisecond, as the sequencer stores them) means the one wanted was erased and this
     * one made under its id since.
     */
    public static void requireSameSession(Instant wanted, Instant actual) {
        if (wanted != null && actual != null && wanted.toEpochMilli() != actual.toEpochMilli()) {
            throw new ApiException(404, "not_found", "session not found: the one that started at " + wanted
                    + " was erased; the session under its id now started at " + actual);
        }
    }

    /** The seq the stream goes on from: the one after this. */
    public long nextSeq() {
        return seq + 1;
    }

    /** The query ({@code ?sessionStartedAt=…}, or empty) that asks for this event's session and no other. */
    public String sameSessionQuery() {
        return sessionStartedAt == null ? ""
                : "?" + START_PARAM + "=" + URLEncoder.encode(sessionStartedAt.toString(), StandardCharsets.UTF_8);
    }

    /** This id as a client sends it. */
    @Override
    public String toString() {
        return of(seq, sessionStartedAt);
    }
}
