package dev.tether.projector.rest;

import dev.tether.kit.service.rest.ApiException;
import dev.tether.kit.service.rest.SseReader;
import dev.tether.kit.service.rest.SseRelay;
import dev.tether.kit.service.rest.StreamEventId;
import dev.tether.projector.config.ProjectorConfig;
import io.smallrye.mutiny.Multi;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

/**
 * A session's live subscription, relayed from the session-service (its {@code GET /v1/sessions/{id}/events} with
 * {@code Accept: text/event-stream}, docs/ARCHITECTURE.md §10), so that a page served by the projector (the session
 * explorer) follows a running session on its own origin: the browser never calls the session-service, which needs no
 * CORS. The caller's own {@code Authorization} is sent on, so the session-service scopes the stream to the caller's
 * tenant exactly as it scopes its own callers; this class adds and keeps nothing. Thread-safe.
 */
@ApplicationScoped
public class LiveRelay {

    private static final Duration CHECK_TIMEOUT = Duration.ofSeconds(10);

    private final String sessionService;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Inject
    LiveRelay(ProjectorConfig config) {
        this(config.sessionServiceUrl());
    }

    LiveRelay(String sessionServiceUrl) {
        this.sessionService = sessionServiceUrl.replaceAll("/+$", "");
    }

    /**
     * The session's events from {@code fromSeq} on, then live, as the session-service streams them to the holder of
     * {@code authorization}. Asks the session-service first whether the caller sees the session at all (the session that
     * started at {@code sessionStartedAt}, when it is known), so that a missing session, another tenant's or an erased
     * one is this request's 404 (a token it refuses its 401 or 403, an outage its 503) rather than a stream that ends at
     * once; the stream itself is opened when it is subscribed to, and ends (an error) when the session-service's ends or
     * is refused (this request's answer has begun by then: the client's next connection gets the check's refusal).
     * Blocks for that first answer: call it on a worker thread.
     *
     * @param sessionStartedAt the start of the session a reconnecting client followed ({@link StreamEventId}), or null
     * @throws ApiException 404 for a session the caller does not see, 401 or 403 when the session-service refuses the
     *                      caller's credentials, 503 with {@code Retry-After} when it does not answer as it should
     */
    public Multi<SseReader.Frame> open(String sessionId, long fromSeq, Instant sessionStartedAt, String authorization) {
        var after = new StreamEventId(fromSeq - 1, sessionStartedAt);
        String path = "/v1/sessions/" + URLEncoder.encode(sessionId, StandardCharsets.UTF_8);
        int status = check(path + after.sameSessionQuery(), authorization);
        if (status == 404) {
            throw ApiException.notFound("session");
        }
        if (status == 401 || status == 403) {
            throw refused(status);
        }
        if (status != 200) {
            throw ApiException.unavailable("the session-service answered " + status + " for the session; try again shortly", 2);
        }
        HttpRequest.Builder stream = request(path + "/events?fromSeq=" + fromSeq, authorization).header("Accept", "text/event-stream");
        if (sessionStartedAt != null) {
            stream.header(StreamEventId.HEADER, after.toString());
        }
        return SseRelay.open(http, stream.GET().build(), "the session-service's live stream");
    }

    /**
     * The session-service's refusal of the caller, as this service's own: a 503 would have the client come back for
     * ever with credentials that cannot get in.
     */
    private static ApiException refused(int status) {
        return status == 401
                ? new ApiException(401, "unauthorized", "the session-service did not accept the caller's token")
                        .withHeader("WWW-Authenticate", "Bearer")
                : new ApiException(403, "forbidden", "the session-service does not let the caller's role read the session");
    }

    private int check(String path, String authorization) {
        try {
            return http.send(request(path, authorization).timeout(CHECK_TIMEOUT).GET().build(), HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (IOException e) {
            throw ApiException.unavailable("the session-service is not reachable for the live stream; try again shortly", 2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted", 1);
        }
    }

    private HttpRequest.Builder request(String pathAndQuery, String authorization) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(sessionService + pathAndQuery));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return request;
    }
}
