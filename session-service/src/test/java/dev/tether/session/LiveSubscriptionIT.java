package dev.tether.session;

import static dev.tether.session.SessionApiIT.AGENT;
import static dev.tether.session.SessionApiIT.append;
import static dev.tether.session.SessionApiIT.batch;
import static dev.tether.session.SessionApiIT.created;
import static dev.tether.session.SessionApiIT.userMessage;
import static dev.tether.session.SessionApiIT.uuid;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.testing.TetherStackResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Server-sent events: catch-up, then live; a reconnect with Last-Event-ID misses nothing and repeats nothing. */
@QuarkusTest
@QuarkusTestResource(TetherStackResource.class)
class LiveSubscriptionIT {

    @TestHTTPResource("/")
    URL base;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final ObjectMapper json = new ObjectMapper();

    /** One SSE event as received: its id is {@code <seq>@<sessionStartedAt>}. */
    record Received(String id, String name, long seqInData) {
        long seq() {
            return Long.parseLong(id.substring(0, id.indexOf('@')));
        }
    }

    @BeforeEach
    void awaitSequencer() {
        SessionApiIT.awaitReady();
    }

    @Test
    void clientThatDisconnectsAndReconnectsWithLastEventId_seesEveryEventExactlyOnce() throws Exception {
        String id = created();
        for (int i = 0; i < 5; i++) {
            append(AGENT, id, batch(userMessage(uuid(), "before " + i))).statusCode(200);
        }
        var received = new ArrayList<Received>();

        // catch-up, then the client goes away after 3 events
        received.addAll(read(id, null, 1L, 3));

        for (int i = 0; i < 4; i++) {
            append(AGENT, id, batch(userMessage(uuid(), "while away " + i))).statusCode(200);
        }
        // reconnect: everything after the last id, then live events as they are appended
        Thread writer = new Thread(() -> {
            try {
                Thread.sleep(1500);
                append(AGENT, id, batch(userMessage(uuid(), "live 1"))).statusCode(200);
                append(AGENT, id, batch(userMessage(uuid(), "live 2"))).statusCode(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        writer.start();
        received.addAll(read(id, received.get(received.size() - 1).id(), null, 9));
        writer.join();

        assertThat(received).extracting(Received::seq).containsExactlyElementsOf(LongStream.rangeClosed(1, 12).boxed().toList());
        assertThat(received).allSatisfy(r -> assertThat(r.seqInData()).isEqualTo(r.seq()));
        assertThat(received.get(0).name()).isEqualTo("session_started");
        assertThat(received.get(11).name()).isEqualTo("user_message");
    }

    /**
     * A stream reconnecting after its session was erased and another made under the id is refused, not continued with the
     * other session's events from the same seq: each event's id carries its session's start, and so does the
     * Last-Event-ID sent back. A bare seq, as a client that does not keep the id sends, still resumes.
     */
    @Test
    void aReconnectAfterTheSessionWasErasedAndMadeAgain_isNotFound() throws Exception {
        String id = created();
        String start = SessionApiIT.events(AGENT, id, 1).getString("events[0].occurredAt");
        append(AGENT, id, batch(userMessage(uuid(), "first session"))).statusCode(200);
        List<Received> followed = read(id, null, 1L, 2);
        assertThat(followed).extracting(Received::id).containsExactly("1@" + start, "2@" + start);
        given().auth().oauth2(AGENT).queryParam("sessionStartedAt", start).get("/v1/sessions/{id}", id).then().statusCode(200);

        given().auth().oauth2(AGENT).delete("/v1/sessions/{id}", id).then().statusCode(200);
        SessionApiIT.createSession(AGENT, id, Map.of("objective", "another session, under the same id")).statusCode(201);
        for (int i = 0; i < 3; i++) {
            append(AGENT, id, batch(userMessage(uuid(), "second session " + i))).statusCode(200);
        }

        Answer refused = open(id + "/events", "2@" + start);
        assertThat(refused.status()).isEqualTo(404);
        assertThat(json.readTree(refused.body()).path("error").asText()).isEqualTo("not_found");
        assertThat(json.readTree(refused.body()).path("message").asText()).contains("erased");
        given().auth().oauth2(AGENT).queryParam("sessionStartedAt", start).get("/v1/sessions/{id}", id).then().statusCode(404)
                .body("error", equalTo("not_found"));
        given().auth().oauth2(AGENT).queryParam("sessionStartedAt", "yesterday").get("/v1/sessions/{id}", id).then().statusCode(400)
                .body("field", equalTo("sessionStartedAt"));
        assertThat(open(id + "/events", "2@yesterday").status()).isEqualTo(400);

        String newStart = SessionApiIT.events(AGENT, id, 1).getString("events[0].occurredAt");
        assertThat(newStart).isNotEqualTo(start);
        assertThat(read(id, "2@" + newStart, null, 2)).extracting(Received::id).containsExactly("3@" + newStart, "4@" + newStart);
        assertThat(read(id, "2", null, 1)).extracting(Received::id).containsExactly("3@" + newStart);
    }

    @Test
    void aFirstConnection_thatNamesTheSessionsStart_isRefusedForOneMadeUnderItsIdSince() throws Exception {
        String id = created();
        String start = SessionApiIT.events(AGENT, id, 1).getString("events[0].occurredAt");
        given().auth().oauth2(AGENT).get("/v1/sessions/{id}", id).then().statusCode(200).body("sessionStartedAt", equalTo(start));
        given().auth().oauth2(AGENT).queryParam("limit", 1000).get("/v1/sessions").then().statusCode(200)
                .body("sessions.find { it.sessionId == '" + id + "' }.sessionStartedAt", equalTo(start));
        String named = "?sessionStartedAt=" + start;
        assertThat(read(id + "/events" + named, null, 1)).extracting(Received::id).containsExactly("1@" + start);

        given().auth().oauth2(AGENT).delete("/v1/sessions/{id}", id).then().statusCode(200);
        SessionApiIT.createSession(AGENT, id, Map.of("objective", "another session, under the same id")).statusCode(201);

        Answer refused = open(id + "/events" + named, null);
        assertThat(refused.status()).isEqualTo(404);
        assertThat(json.readTree(refused.body()).path("message").asText()).contains("erased");
        given().auth().oauth2(AGENT).queryParam("sessionStartedAt", start).get("/v1/sessions/{id}/events", id).then().statusCode(404)
                .body("error", equalTo("not_found"));
        String newStart = given().auth().oauth2(AGENT).get("/v1/sessions/{id}", id).then().statusCode(200)
                .extract().path("sessionStartedAt");
        assertThat(newStart).isNotEqualTo(start);
        assertThat(read(id + "/events?sessionStartedAt=" + newStart, null, 1)).extracting(Received::id)
                .containsExactly("1@" + newStart);
        given().auth().oauth2(AGENT).queryParam("sessionStartedAt", newStart).get("/v1/sessions/{id}/events", id).then().statusCode(200)
                .body("events[0].seq", equalTo(1));
        assertThat(open(id + "/events?sessionStartedAt=yesterday", null).status()).isEqualTo(400);
    }

    @Test
    void anotherTenant_cannotSubscribe() throws Exception {
        String id = created();
        var request = HttpRequest.newBuilder(URI.create(base + "v1/sessions/" + id + "/events"))
                .header("Accept", "text/event-stream")
                .header("Authorization", "Bearer " + SessionApiIT.OTHER_TENANT)
                .build();
        assertThat(http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(404);
    }

    /** An answer to opening the stream: its status, and its body unless it is a stream (which is closed at once). */
    record Answer(int status, String body) {}

    /**
     * Opens the stream at {@code path} ({@code <sessionId>/events?…}) after {@code lastEventId} (when not null); a stream
     * (200) is closed at once, unread.
     */
    private Answer open(String path, String lastEventId) throws Exception {
        var builder = HttpRequest.newBuilder(URI.create(base + "v1/sessions/" + path))
                .header("Accept", "text/event-stream")
                .header("Authorization", "Bearer " + AGENT)
                .timeout(Duration.ofSeconds(30));
        if (lastEventId != null) {
            builder.header("Last-Event-ID", lastEventId);
        }
        var request = builder.build();
        // a stream's answer may wait for its first event: a bounded wait fails the test where a send would hang it
        HttpResponse<java.io.InputStream> response = http.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream())
                .get(30, java.util.concurrent.TimeUnit.SECONDS);
        try (var body = response.body()) {
            return new Answer(response.statusCode(), response.statusCode() == 200 ? "" : new String(body.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    /** Connects, reads {@code count} events, and disconnects. */
    private List<Received> read(String sessionId, String lastEventId, Long fromSeq, int count) throws Exception {
        return read(sessionId + "/events" + (fromSeq == null ? "" : "?fromSeq=" + fromSeq), lastEventId, count);
    }

    /** Connects to the stream at {@code path} ({@code <sessionId>/events?…}), reads {@code count} events, and disconnects. */
    private List<Received> read(String path, String lastEventId, int count) throws Exception {
        var uri = base + "v1/sessions/" + path;
        var request = HttpRequest.newBuilder(URI.create(uri))
                .header("Accept", "text/event-stream")
                .header("Authorization", "Bearer " + AGENT)
                .timeout(Duration.ofSeconds(30));
        if (lastEventId != null) {
            request.header("Last-Event-ID", lastEventId);
        }
        HttpResponse<java.io.InputStream> response = http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        assertThat(response.statusCode()).isEqualTo(200);
        var events = new ArrayList<Received>();
        try (var reader = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            String idLine = null;
            String name = null;
            String line;
            while (events.size() < count && (line = reader.readLine()) != null) {
                if (line.startsWith("id:")) {
                    idLine = line.substring(3).trim();
                } else if (line.startsWith("event:")) {
                    name = line.substring(6).trim();
                } else if (line.startsWith("data:")) {
                    long seq = json.readTree(line.substring(5).trim()).get("seq").asLong();
                    events.add(new Received(idLine, name, seq));
                }
            }
        }
        return events;
    }
}
