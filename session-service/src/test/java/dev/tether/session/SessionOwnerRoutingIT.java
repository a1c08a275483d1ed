package dev.tether.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.kit.service.rest.OwnerRouting;
import dev.tether.kit.service.rest.SseReader;
import dev.tether.testing.ServiceProcess;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two session-service instances share the partitions of the same topics, as {@code deploy/} runs them. Whichever one a
 * request reaches (a load balancer's pick), it sees every session of the caller's tenant: the list and the harness
 * versions' open-session counts are gathered from both, a session's live stream is relayed from the instance that
 * holds it, and a fork or a subagent of a session the other instance holds is made there. The list is paged across both.
 */
class SessionOwnerRoutingIT {

    private static final String AGENT = "Bearer dev-acme-agent";
    private static final String FOREIGN = "Bearer dev-globex-agent";
    private static final String OPERATOR = "Bearer dev-operator";

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();
    private final ObjectMapper json = new ObjectMapper();
    private Path workDir;
    private ServiceProcess a;
    private ServiceProcess b;

    /** Polls that outlast a rebalance of two instances on a loaded machine; a request that timed out is asked again. */
    private static ConditionFactory patiently(String what) {
        return await(what).atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1))
                .ignoreExceptionsInstanceOf(UncheckedIOException.class);
    }

    @BeforeEach
    void start() throws IOException {
        String prefix = "route-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        workDir = Files.createTempDirectory("session-routing-");
        var env = ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix);
        a = new ServiceProcess(Path.of("").toAbsolutePath(), workDir.resolve("a"), env, List.of()).start();
        b = new ServiceProcess(Path.of("").toAbsolutePath(), workDir.resolve("b"), env, List.of()).start();
    }

    @AfterEach
    void stop() throws IOException {
        for (ServiceProcess p : new ServiceProcess[] {b, a}) {
            if (p != null) {
                p.close();
            }
        }
        try (var paths = Files.walk(workDir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Test
    void eitherInstance_listsStreamsForksAndCountsEverySession_wheneverTheOtherHoldsIt() throws Exception {
        var acme = new TreeSet<String>();
        for (int i = 0; i < 8; i++) {
            acme.add(create(i % 2 == 0 ? a : b, AGENT, "acme-" + i));
        }
        String foreign = create(b, FOREIGN, "globex");

        patiently("both instances list every session of the tenant, and none of another's").untilAsserted(() -> {
            for (ServiceProcess instance : List.of(a, b)) {
                assertThat(sessionIds(instance, AGENT)).as("from %s", instance.baseUrl()).containsExactlyElementsOf(acme);
                assertThat(sessionIds(instance, FOREIGN)).as("from %s", instance.baseUrl()).containsExactly(foreign);
            }
        });
        for (ServiceProcess instance : List.of(a, b)) { // page by page, whatever each instance holds of a page
            var paged = new ArrayList<String>();
            String after = null;
            int pages = 0;
            do {
                var page = send(instance, "GET", "/v1/sessions?limit=3" + (after == null ? "" : "&after=" + after), AGENT, null);
                assertThat(page.statusCode()).as("%s", page.body()).isEqualTo(200);
                JsonNode body = json.readTree(page.body());
                body.get("sessions").forEach(s -> paged.add(s.get("sessionId").asText()));
                assertThat(body.get("sessions").size()).isLessThanOrEqualTo(3);
                after = body.path("nextAfter").isTextual() ? body.get("nextAfter").asText() : null;
                pages++;
            } while (after != null);
            assertThat(paged).as("from %s", instance.baseUrl()).containsExactlyElementsOf(acme);
            assertThat(pages).isEqualTo(3);
        }
        patiently("both instances count every open session of v1 of the operator's tenant, and none of another's")
                .untilAsserted(() -> {
            for (ServiceProcess instance : List.of(a, b)) {
                assertThat(openOnV1(instance, OPERATOR)).as("from %s", instance.baseUrl()).isEqualTo(acme.size());
                assertThat(openOnV1(instance, "Bearer dev-globex-operator")).as("from %s", instance.baseUrl()).isEqualTo(1);
            }
        });

        // a session instance A does not hold: B holds it
        String held = acme.stream().filter(id -> localStatus(a, id) == 503).findFirst().orElseThrow();
        assertThat(localStatus(b, held)).isEqualTo(200);

        // its live stream through A: the catch-up, then an event appended now (through B), then after Last-Event-ID
        String start;
        try (var stream = new EventStream(a, held, AGENT, Map.of())) {
            Map<String, String> first = stream.next();
            assertThat(first).containsEntry("event", "session_started");
            start = json.readTree(first.get("data")).get("occurredAt").asText();
            assertThat(first).containsEntry("id", "1@" + start);
            var appended = send(b, "POST", "/v1/sessions/" + held + "/events", AGENT, Map.of("events",
                    List.of(Map.of("eventId", UUID.randomUUID().toString(), "type", "user_message", "content", "live through A"))));
            assertThat(appended.statusCode()).as("%s", appended.body()).isEqualTo(200);
            Map<String, String> live = stream.next();
            assertThat(live).containsEntry("id", "2@" + start).containsEntry("event", "user_message");
            assertThat(json.readTree(live.get("data")).get("content").asText()).isEqualTo("live through A");
        }
        try (var stream = new EventStream(a, held, AGENT, Map.of("Last-Event-ID", "1@" + start))) {
            assertThat(stream.next()).containsEntry("id", "2@" + start);
        }
        try (var stream = new EventStream(a, held, AGENT, Map.of("Last-Event-ID", "1"))) {
            assertThat(stream.next()).containsEntry("id", "2@" + start);
        }
        assertThat(streamStatus(a, held, FOREIGN, Map.of())).as("another tenant's session, relayed or not").isEqualTo(404);
        assertThat(streamStatus(a, "no-such-" + held, AGENT, Map.of())).isEqualTo(404);
        assertThat(streamStatus(a, held, AGENT, Map.of("Last-Event-ID", "1@2026-01-01T00:00:00Z")))
                .as("a reconnect to a session of the id that started at another time (erased since), relayed").isEqualTo(404);

        // a fork and a subagent of it, asked of A, are made where its log and head are
        var fork = send(a, "POST", "/v1/sessions/" + held + "/fork", AGENT, Map.of("atSeq", 2));
        assertThat(fork.statusCode()).as("%s", fork.body()).isEqualTo(201);
        assertThat(json.readTree(fork.body()).get("parentSessionId").asText()).isEqualTo(held);
        var child = send(a, "POST", "/v1/sessions/" + held + "/subagents", AGENT, Map.of("objective", "look around", "toolMode", "READ_ONLY"));
        assertThat(child.statusCode()).as("%s", child.body()).isEqualTo(201);
        assertThat(send(a, "POST", "/v1/sessions/" + held + "/fork", FOREIGN, Map.of("atSeq", 1)).statusCode()).isEqualTo(404);
        String forkId = json.readTree(fork.body()).get("sessionId").asText();
        patiently("the fork is listed by both").untilAsserted(() -> {
            assertThat(sessionIds(a, AGENT)).contains(forkId, json.readTree(child.body()).get("sessionId").asText());
            assertThat(sessionIds(b, AGENT)).contains(forkId);
        });
    }

    private String create(ServiceProcess instance, String token, String name) throws Exception {
        String id = name + "-" + UUID.randomUUID().toString().substring(0, 8);
        var body = Map.of("objective", "be routed", "modelId", "model-x", "toolMode", "READ_ONLY", "sessionId", id, "eventId", id + "-started");
        var created = send(instance, "POST", "/v1/sessions", token, body);
        for (int retry = 0; created.statusCode() == 503 && retry < 100; retry++) {
            Thread.sleep(300);
            created = send(instance, "POST", "/v1/sessions", token, body);
        }
        assertThat(created.statusCode()).as("%s", created.body()).isEqualTo(201);
        return id;
    }

    private List<String> sessionIds(ServiceProcess instance, String token) throws IOException {
        var list = send(instance, "GET", "/v1/sessions", token, null);
        assertThat(list.statusCode()).as("the list from %s: %s", instance.baseUrl(), list.body()).isEqualTo(200);
        var ids = new ArrayList<String>();
        json.readTree(list.body()).get("sessions").forEach(s -> ids.add(s.get("sessionId").asText()));
        return ids;
    }

    /** What the instance answers for the session from its own partitions, without forwarding: 503 if it does not hold it. */
    private int localStatus(ServiceProcess instance, String sessionId) {
        try {
            var request = HttpRequest.newBuilder(URI.create(instance.baseUrl() + "/v1/sessions/" + sessionId)).timeout(Duration.ofSeconds(20))
                    .header("Authorization", AGENT).header(OwnerRouting.FORWARDED, "1").GET().build();
            return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private int streamStatus(ServiceProcess instance, String sessionId, String token, Map<String, String> headers) throws Exception {
        var request = HttpRequest.newBuilder(URI.create(instance.baseUrl() + "/v1/sessions/" + sessionId + "/events"))
                .timeout(Duration.ofSeconds(20)).header("Authorization", token).header("Accept", "text/event-stream");
        headers.forEach(request::header);
        HttpResponse<InputStream> response = http.sendAsync(request.GET().build(), HttpResponse.BodyHandlers.ofInputStream())
                .get(30, java.util.concurrent.TimeUnit.SECONDS); // a stream's answer may wait for its first event
        response.body().close();
        return response.statusCode();
    }

    /** The open sessions of v1 of the tenant of {@code operatorToken}, as {@code instance} answers its operator. */
    private long openOnV1(ServiceProcess instance, String operatorToken) throws Exception {
        var versions = send(instance, "GET", "/v1/harness-versions", operatorToken, null);
        assertThat(versions.statusCode()).as("%s", versions.body()).isEqualTo(200);
        for (JsonNode v : json.readTree(versions.body()).get("versions")) {
            if (v.get("version").asText().equals("v1")) {
                return v.get("openSessions").asLong();
            }
        }
        throw new AssertionError("no v1 in " + versions.body());
    }

    private HttpResponse<String> send(ServiceProcess instance, String method, String path, String token, Object body) {
        try {
            var request = HttpRequest.newBuilder(URI.create(instance.baseUrl() + path)).timeout(Duration.ofSeconds(30))
                    .header("Authorization", token).header("Content-Type", "application/json")
                    .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body)))
                    .build();
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A session's SSE stream read on a thread of its own: each event as its fields ({@code id}, {@code event}, {@code data}). */
    private final class EventStream implements AutoCloseable {

        private final BlockingQueue<Map<String, String>> events = new LinkedBlockingQueue<>();
        private final InputStream body;
        private final Thread reader;

        EventStream(ServiceProcess instance, String sessionId, String token, Map<String, String> headers) throws Exception {
            var request = HttpRequest.newBuilder(URI.create(instance.baseUrl() + "/v1/sessions/" + sessionId + "/events?fromSeq=1"))
                    .header("Authorization", token).header("Accept", "text/event-stream");
            headers.forEach(request::header);
            HttpResponse<InputStream> response = http.send(request.GET().build(), HttpResponse.BodyHandlers.ofInputStream());
            assertThat(response.statusCode()).as("the stream of %s from %s", sessionId, instance.baseUrl()).isEqualTo(200);
            body = response.body();
            reader = new Thread(this::read, "sse-" + sessionId);
            reader.setDaemon(true);
            reader.start();
        }

        private void read() {
            var frames = new SseReader();
            byte[] buffer = new byte[8192];
            try {
                for (int n; (n = body.read(buffer)) >= 0; ) {
                    for (SseReader.Frame frame : frames.read(List.of(ByteBuffer.wrap(buffer, 0, n)))) {
                        events.add(Map.of("id", String.valueOf(frame.id()), "event", String.valueOf(frame.event()), "data", frame.data()));
                    }
                }
            } catch (IOException e) {
                // closed by the test
            }
        }

        Map<String, String> next() throws InterruptedException {
            Map<String, String> event = events.poll(60, TimeUnit.SECONDS);
            assertThat(event).as("an event within a minute").isNotNull();
            return event;
        }

        @Override
        public void close() throws Exception {
            body.close();
            reader.join(Duration.ofSeconds(10).toMillis());
        }
    }
}
