package dev.tether.kit.service.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.sun.net.httpserver.HttpServer;
import dev.tether.testing.IdleStreams;
import jakarta.enterprise.inject.Instance;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriBuilder;
import jakarta.ws.rs.core.UriInfo;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.internals.StreamsMetadataImpl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OwnerRoutingTest {

    private static final HostInfo SELF = new HostInfo("10.0.0.1", 8080);
    private static final HostInfo PEER = new HostInfo("10.0.0.2", 8080);

    @TempDir
    Path stateDir;

    private final List<KafkaStreams> opened = new ArrayList<>();

    @AfterEach
    void close() {
        opened.forEach(KafkaStreams::close);
    }

    private static StreamsMetadata instance(int port, TopicPartition... partitions) {
        return new StreamsMetadataImpl(new HostInfo("127.0.0.1", port), Set.of("store"), Set.of(partitions), Set.of(), Set.of());
    }

    @Test
    void noPartitionIsUnowned_whenTheInstancesTogetherHoldEveryOne() {
        var a = instance(1, new TopicPartition("events", 0), new TopicPartition("commands", 0), new TopicPartition("events", 2));
        var b = instance(2, new TopicPartition("events", 1), new TopicPartition("events", 3));

        assertThat(OwnerRouting.unowned(List.of(a, b), 4)).isEmpty();
    }

    @Test
    void namesThePartitionsNobodyHolds_duringARebalance() {
        var a = instance(1, new TopicPartition("events", 0));
        var b = instance(2, new TopicPartition("events", 3));

        assertThat(OwnerRouting.unowned(List.of(a, b), 4)).containsExactly(1, 2);
        assertThat(OwnerRouting.unowned(List.of(), 2)).containsExactly(0, 1);
    }

    @Test
    void aForwardedRead_ofASessionWhosePartitionIsNotHere_answers503_neverThisInstancesMiss() {
        // the sender saw this instance as the owner, but a rebalance has moved the partition on (or a client sent the
        // header itself): reading here would answer 404 for a session that exists
        OwnerRouting routing = routing(owner(PEER), false);

        for (Runnable read : List.<Runnable>of(
                () -> routing.serveLocallyOrForward("heads", "s1", null, headers(true)),
                () -> routing.serveLocallyOrForward("heads", "s1", null, headers(true), new byte[] {'{', '}'}),
                () -> routing.serveLocallyOrForwardOrCopy("heads", "s1", null, headers(true), List.of("heads")),
                () -> routing.streamFromOwner("heads", "s1", "/v1/sessions/s1", null, headers(true)))) {
            ApiException refused = catchThrowableOfType(ApiException.class, read::run);

            assertThat(refused).isNotNull();
            assertThat(refused.status()).isEqualTo(503);
            assertThat(refused.headers()).containsKey("Retry-After");
            assertThat(refused.body()).containsEntry("error", "unavailable");
        }
    }

    @Test
    void aForwardedRead_ofASessionWhosePartitionIsHere_isServedHere() {
        OwnerRouting routing = routing(owner(PEER), true); // held here already, whatever the sender's metadata said

        routing.serveLocallyOrForward("heads", "s1", null, headers(true));
        assertThat(routing.serveLocallyOrForwardOrCopy("heads", "s1", null, headers(true), List.of("heads"))).isEmpty();
        assertThat(routing.streamFromOwner("heads", "s1", "/v1/sessions/s1", null, headers(true))).isEmpty();
    }

    @Test
    void aRead_ofASessionThisInstanceIsToTakeOverButDoesNotHoldYet_answers503_neverTheMissOfItsOtherPartitions() {
        // the group has made this instance the owner and its task is not running here yet (restoring): the local read
        // runs over the partitions that are here, which do not hold the session
        OwnerRouting routing = routing(owner(SELF), false);

        for (boolean forwarded : new boolean[] {false, true}) {
            for (Runnable read : List.<Runnable>of(
                    () -> routing.serveLocallyOrForward("heads", "s1", null, headers(forwarded)),
                    // and no warm copy of the partition here either
                    () -> routing.serveLocallyOrForwardOrCopy("heads", "s1", null, headers(forwarded), List.of("heads")),
                    () -> routing.streamFromOwner("heads", "s1", "/v1/sessions/s1", null, headers(forwarded)),
                    () -> routing.fetchFromOwner("heads", "s1", "/v1/sessions/s1/events", headers(forwarded)))) {
                ApiException refused = catchThrowableOfType(ApiException.class, read::run);

                assertThat(refused).as("forwarded: %s", forwarded).isNotNull();
                assertThat(refused.status()).isEqualTo(503);
                assertThat(refused.headers()).containsKey("Retry-After");
            }
        }
    }

    @Test
    void aListThatAnotherInstanceDoesNotAnswer_is503_withoutNamingThatInstancesAddress() throws Exception {
        int closed;
        try (var socket = new java.net.ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        var peer = new StreamsMetadataImpl(new HostInfo("127.0.0.1", closed), Set.of("heads"),
                Set.of(new TopicPartition("events", 1)), Set.of(), Set.of());
        var self = new StreamsMetadataImpl(SELF, Set.of("heads"), Set.of(new TopicPartition("events", 0)), Set.of(), Set.of());
        Object store = Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {ReadOnlyKeyValueStore.class},
                (proxy, method, args) -> 0L);
        var streams = new IdleStreams("owner-routing-test", stateDir, KafkaStreams.State.RUNNING, parameters -> store) {
            @Override
            public Collection<StreamsMetadata> streamsMetadataForStore(String storeName) {
                return List.of(self, peer);
            }
        };
        opened.add(streams);
        UriInfo uri = uri("http://10.0.0.1:8080/v1/sessions?limit=10");

        ApiException refused = catchThrowableOfType(ApiException.class,
                () -> routing(streams).gatherFromOthers("heads", 2, uri, headers(false)));

        assertThat(refused).isNotNull();
        assertThat(refused.status()).isEqualTo(503);
        assertThat(refused.headers()).containsKey("Retry-After");
        assertThat(refused.body().get("message").toString()).doesNotContain("127.0.0.1").doesNotContain(Integer.toString(closed));
    }

    @Test
    void aForwardedAnswer_keepsTheHeadersThatTellTheClientHowToGoOn_authenticateOrWhichMethodsAreAllowed() throws Exception {
        HttpServer peer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        peer.createContext("/", exchange -> {
            boolean unauthenticated = exchange.getRequestURI().getPath().endsWith("/s1");
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.getResponseHeaders().add(unauthenticated ? "WWW-Authenticate" : "Allow",
                    unauthenticated ? "Bearer error=\"invalid_token\"" : "GET, POST");
            exchange.getResponseHeaders().add("X-Internal", "not relayed");
            byte[] body = "{\"error\":\"refused\"}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(unauthenticated ? 401 : 405, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        peer.start();
        try {
            OwnerRouting routing = routing(owner(new HostInfo("127.0.0.1", peer.getAddress().getPort())), false);

            Response unauthenticated = catchThrowableOfType(OwnerRouting.RemoteAnswer.class,
                    () -> routing.serveLocallyOrForward("heads", "s1", uri("http://10.0.0.1:8080/v1/sessions/s1"), headers(false)))
                    .response();
            Response notAllowed = catchThrowableOfType(OwnerRouting.RemoteAnswer.class,
                    () -> routing.serveLocallyOrForward("heads", "s2", uri("http://10.0.0.1:8080/v1/sessions/s2"), headers(false)))
                    .response();

            assertThat(unauthenticated.getStatus()).isEqualTo(401);
            assertThat(unauthenticated.getHeaderString("WWW-Authenticate")).isEqualTo("Bearer error=\"invalid_token\"");
            assertThat(unauthenticated.getHeaderString("X-Internal")).isNull();
            assertThat(notAllowed.getStatus()).isEqualTo(405);
            assertThat(notAllowed.getHeaderString("Allow")).isEqualTo("GET, POST");
        } finally {
            peer.stop(0);
        }
    }

    private UriInfo uri(String requested) {
        return (UriInfo) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {UriInfo.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getRequestUriBuilder" -> UriBuilder.fromUri(requested);
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private static KeyQueryMetadata owner(HostInfo host) {
        return new KeyQueryMetadata(host, Set.of(), 3);
    }

    /** A router on {@link #SELF} whose Streams instance says {@code owner} holds partition 3, and holds it here or not. */
    private OwnerRouting routing(KeyQueryMetadata owner, boolean heldHere) {
        Object store = Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {ReadOnlyKeyValueStore.class},
                (proxy, method, args) -> 0L);
        var streams = new IdleStreams("owner-routing-test", stateDir, KafkaStreams.State.RUNNING, parameters -> {
            if (!heldHere) {
                throw new InvalidStateStoreException("partition " + parameters.partition() + " is not here");
            }
            return store;
        }) {
            @Override
            public <K> KeyQueryMetadata queryMetadataForKey(String storeName, K key, StreamPartitioner<? super K, ?> partitioner) {
                return owner;
            }
        };
        opened.add(streams);
        return routing(streams);
    }

    private OwnerRouting routing(KafkaStreams streams) {
        @SuppressWarnings("unchecked")
        Instance<KafkaStreams> instance = (Instance<KafkaStreams>) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {Instance.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "isResolvable" -> true;
                    case "get" -> streams;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        return new OwnerRouting(instance, Optional.of(SELF.host() + ":" + SELF.port()), 1000);
    }

    private static HttpHeaders headers(boolean forwarded) {
        Map<String, String> values = forwarded ? Map.of(OwnerRouting.FORWARDED, "1") : Map.of();
        return (HttpHeaders) Proxy.newProxyInstance(OwnerRoutingTest.class.getClassLoader(), new Class<?>[] {HttpHeaders.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getHeaderString" -> values.get((String) args[0]);
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
