package dev.tether.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.sun.net.httpserver.HttpServer;
import dev.tether.avro.SessionEvent;
import dev.tether.testing.TcpProxy;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.serialization.Serde;
import org.junit.jupiter.api.Test;

/**
 * Every registry call has a deadline: a registry that accepts connections and never answers (a plain server socket),
 * one that refuses them, and one that answers with a server error make the call fail with
 * {@link RegistryUnavailableException} in bounded time; a definite answer (404) is an answer. Before issue 15 §1 the
 * serde's lookup against the silent registry never returned.
 */
class RegistryConnectionTest {

    private static final Duration SHORT = Duration.ofMillis(800);
    /** A record written with schema content id 42, which the deserializer must look up. */
    private static final byte[] RECORD_OF_UNKNOWN_SCHEMA = {0, 0, 0, 0, 42, 2, 'x'};

    @Test
    void aLookupAgainstARegistryThatAcceptsAndNeverAnswers_failsWithinItsDeadline_andTheStatusSaysUnreachable() {
        try (var silent = TcpProxy.start("127.0.0.1", 1, TcpProxy.Mode.BLACK_HOLE)) {
            var settings = new RegistrySettings("http://127.0.0.1:" + silent.port() + "/apis/registry/v3", SHORT, SHORT);
            try (var registry = RegistryConnection.open(settings); Serde<SessionEvent> serde = AvroSerdes.valueSerde(registry)) {
                long t0 = System.nanoTime();
                assertThatThrownBy(() -> serde.deserializer().deserialize("session-events", RECORD_OF_UNKNOWN_SCHEMA))
                        .satisfies(e -> assertThat(RegistryUnavailableException.in(e)).isPresent());
                Duration took = Duration.ofNanos(System.nanoTime() - t0);
                assertThat(took).isLessThan(settings.lookupDeadline().plusSeconds(2));
                assertThat(registry.status().reachable()).isFalse();
                assertThat(registry.status().detail()).contains(settings.url()).contains("did not answer");

                assertThat(registry.probe().reachable()).isFalse();
            }
        }
    }

    /**
     * The serde that owns its connection (the one {@link AvroSerdes#valueSerde(String)} builds, with
     * {@link RegistrySettings#patient} deadlines): before issue 15 §1 its own client parked the thread for good. Its
     * lookup against the silent registry ends within the deadlines it was given; the patient ones are bounded too (a
     * lookup under them was waited out here before, 30 s of every build).
     */
    @Test
    void theSerdeWithAConnectionOfItsOwn_endsItsLookupAgainstASilentRegistryWithinItsDeadlines() {
        try (var silent = TcpProxy.start("127.0.0.1", 1, TcpProxy.Mode.BLACK_HOLE)) {
            var settings = new RegistrySettings("http://127.0.0.1:" + silent.port() + "/apis/registry/v3", SHORT, SHORT);
            try (Serde<SessionEvent> serde = AvroSerdes.valueSerde(settings)) {
                Throwable failure = assertTimeoutPreemptively(settings.lookupDeadline().plusSeconds(2),
                        () -> catchThrowable(() -> serde.deserializer().deserialize("session-events", RECORD_OF_UNKNOWN_SCHEMA)));
                assertThat(RegistryUnavailableException.in(failure)).isPresent();
            }
        }
        assertThat(RegistrySettings.patient("http://x").lookupDeadline()).isPositive().isLessThan(Duration.ofMinutes(2));
    }

    @Test
    void aRegistryThatRefusesConnections_failsTheLookupAtOnce() throws IOException {
        int closedPort;
        try (var s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        var settings = new RegistrySettings("http://127.0.0.1:" + closedPort + "/apis/registry/v3", SHORT, SHORT);
        try (var registry = RegistryConnection.open(settings)) {
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> registry.facade().getReferencesByContentId(42))
                    .isInstanceOf(RegistryUnavailableException.class)
                    .hasMessageContaining(settings.url());
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(3));
            assertThat(registry.probe().reachable()).isFalse();
        }
    }

    @Test
    void aServerError_isUnavailability_butNotFound_isAnAnswer() throws IOException {
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        http.createContext("/apis/registry/v3/ids/contentIds/1/references", exchange -> answer(exchange, 503));
        http.createContext("/apis/registry/v3/ids/contentIds/2/references", exchange -> answer(exchange, 404));
        http.createContext("/apis/registry/v3/system/info", exchange -> answer(exchange, 200));
        http.start();
        var settings = new RegistrySettings("http://127.0.0.1:" + http.getAddress().getPort() + "/apis/registry/v3", SHORT, SHORT);
        try (var registry = RegistryConnection.open(settings)) {
            assertThatThrownBy(() -> registry.facade().getReferencesByContentId(1)).isInstanceOf(RegistryUnavailableException.class)
                    .hasMessageContaining("503");
            assertThat(registry.status().reachable()).isFalse();
            assertThat(registry.status().answeredBefore()).isFalse();

            assertThatThrownBy(() -> registry.facade().getReferencesByContentId(2))
                    .isNotInstanceOf(RegistryUnavailableException.class);
            assertThat(registry.status().reachable()).isTrue();
            assertThat(registry.probe().reachable()).isTrue();

            // failing again after an answer: unreachable since then, and it did answer before (readiness's grace)
            assertThatThrownBy(() -> registry.facade().getReferencesByContentId(1)).isInstanceOf(RegistryUnavailableException.class);
            assertThat(registry.status().reachable()).isFalse();
            assertThat(registry.status().answeredBefore()).isTrue();
        } finally {
            http.stop(0);
        }
    }

    /**
     * A registry whose keep-alive connections die under the client (a restarted registry, a proxy's idle timeout):
     * this one answers the first request of each connection and closes the connection at the second. Each probe after
     * the first goes out on the pooled, dead connection; it must still find the registry answering. Before the fix the
     * probe said unreachable and readiness went DOWN with the registry up (seen in CI, issue 15 §1).
     */
    @Test
    void aProbeOnAConnectionTheRegistryClosed_triesAFreshOne_andFindsItAnswering() throws Exception {
        try (var server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            var connections = new AtomicInteger();
            var acceptor = new Thread(() -> {
                while (!server.isClosed()) {
                    try {
                        var socket = server.accept();
                        connections.incrementAndGet();
                        var handler = new Thread(() -> answerOnceThenClose(socket));
                        handler.setDaemon(true);
                        handler.start();
                    } catch (IOException closed) {
                        return;
                    }
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            var settings = new RegistrySettings("http://127.0.0.1:" + server.getLocalPort() + "/apis/registry/v3", SHORT, SHORT);
            try (var registry = RegistryConnection.open(settings)) {
                for (int probe = 1; probe <= 3; probe++) {
                    assertThat(registry.probe().reachable()).as("probe %d: %s", probe, registry.status().detail()).isTrue();
                }
                assertThat(connections.get()).as("a fresh connection for each probe after the first").isEqualTo(3);
            }
        }
    }

    private static void answerOnceThenClose(Socket socket) {
        try (socket; var in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))) {
            readHeaders(in);
            socket.getOutputStream().write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
                    .getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            readHeaders(in); // the next request on this connection: closed without an answer
        } catch (IOException e) {
            // the client hung up first: nothing to do
        }
    }

    private static void readHeaders(BufferedReader in) throws IOException {
        for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
            // headers only: the probes have no body
        }
    }

    private static void answer(com.sun.net.httpserver.HttpExchange exchange, int status) throws IOException {
        byte[] body = ("{\"status\":" + status + ",\"title\":\"t\",\"detail\":\"d\",\"name\":\"n\"}").getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/problem+json");
        exchange.sendResponseHeaders(status, body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }
}
