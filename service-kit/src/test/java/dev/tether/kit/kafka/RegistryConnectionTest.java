package dev.tether.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.sun.net.httpserver.HttpServer;
import dev.tether.avro.SessionEvent;
import dev.tether.testing.TcpProxy;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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

    @Test
    void theDefaultSerde_hasTheDefaultDeadlines_soItsLookupAgainstASilentRegistryEnds() {
        try (var silent = TcpProxy.start("127.0.0.1", 1, TcpProxy.Mode.BLACK_HOLE);
             Serde<SessionEvent> serde = AvroSerdes.valueSerde("http://127.0.0.1:" + silent.port() + "/apis/registry/v3")) {
            // the serde's own client parked this thread forever: the deadline ends it, a preemptive timeout proves it
            Throwable failure = assertTimeoutPreemptively(RegistrySettings.patient("http://x").lookupDeadline().plusSeconds(5),
                    () -> catchThrowable(() -> serde.deserializer().deserialize("session-events", RECORD_OF_UNKNOWN_SCHEMA)));
            assertThat(RegistryUnavailableException.in(failure)).isPresent();
        }
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

            assertThatThrownBy(() -> registry.facade().getReferencesByContentId(2))
                    .isNotInstanceOf(RegistryUnavailableException.class);
            assertThat(registry.status().reachable()).isTrue();
            assertThat(registry.probe().reachable()).isTrue();
        } finally {
            http.stop(0);
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
