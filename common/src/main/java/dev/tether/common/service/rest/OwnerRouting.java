package dev.tether.common.service.rest;

import dev.tether.common.kafka.SessionPartitioner;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.HostInfo;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Sends a read to the instance that holds the session's partition (Kafka Streams interactive
 * queries; every instance advertises itself with {@code quarkus.kafka-streams.application-server}).
 * A read for a session this instance holds is served here; any other is forwarded once, with the
 * caller's credentials, and its answer returned as it is. A forwarded request is never forwarded
 * again; while the owner is unknown (a rebalance) the answer is 503 with {@code Retry-After}.
 */
@ApplicationScoped
public class OwnerRouting {

    /** The header marking a request one instance sent to another; such a request is never forwarded again. */
    public static final String FORWARDED = "X-Tether-Forwarded";

    private final Instance<KafkaStreams> streams;
    private final boolean advertised;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();

    OwnerRouting(Instance<KafkaStreams> streams,
                 @ConfigProperty(name = "quarkus.kafka-streams.application-server") Optional<String> applicationServer) {
        this.streams = streams;
        this.advertised = applicationServer.isPresent();
    }

    /** Thrown to answer with another instance's response. */
    public static final class RemoteAnswer extends RuntimeException {
        private final transient Response response;

        RemoteAnswer(Response response) {
            super(null, null, false, false);
            this.response = response;
        }

        public Response response() {
            return response;
        }
    }

    /**
     * Returns if this instance holds {@code sessionId}'s partition of {@code store}; otherwise
     * throws {@link RemoteAnswer} with the owner's answer to the same request.
     */
    public void serveLocallyOrForward(String store, String sessionId, UriInfo uri, HttpHeaders headers) {
        if (!streams.isResolvable() || !advertised || headers.getHeaderString(FORWARDED) != null) {
            return;
        }
        KafkaStreams kafkaStreams = streams.get();
        KeyQueryMetadata owner = kafkaStreams.queryMetadataForKey(store, sessionId, new SessionPartitioner());
        if (owner == null || owner.equals(KeyQueryMetadata.NOT_AVAILABLE)) {
            throw ApiException.unavailable("the session's partition is being reassigned; try again shortly", 1);
        }
        if (!holdsLocally(kafkaStreams, store, owner.partition())) {
            throw new RemoteAnswer(forward(owner.activeHost(), uri, headers));
        }
    }

    /**
     * The answer of the instance holding {@code sessionId}'s partition of {@code store} to {@code GET pathAndQuery}
     * (e.g. {@code /v1/sessions/s1/events?fromSeq=1&toSeq=5}), sent with the caller's credentials and marked as
     * forwarded; empty when this instance holds it (or runs alone), so the caller reads it here. For a read that needs
     * another session's data, which {@link #serveLocallyOrForward} cannot route. While the owner is unknown, or not
     * reachable, throws 503 with {@code Retry-After}.
     */
    public Optional<HttpResponse<byte[]>> fetchFromOwner(String store, String sessionId, String pathAndQuery, HttpHeaders headers) {
        if (!streams.isResolvable() || !advertised) {
            return Optional.empty();
        }
        KafkaStreams kafkaStreams = streams.get();
        KeyQueryMetadata owner = kafkaStreams.queryMetadataForKey(store, sessionId, new SessionPartitioner());
        if (owner == null || owner.equals(KeyQueryMetadata.NOT_AVAILABLE)) {
            throw ApiException.unavailable("a session's partition is being reassigned; try again shortly", 1);
        }
        if (holdsLocally(kafkaStreams, store, owner.partition())) {
            return Optional.empty();
        }
        HostInfo host = owner.activeHost();
        var request = HttpRequest.newBuilder(URI.create("http://" + host.host() + ":" + host.port() + pathAndQuery))
                .timeout(Duration.ofSeconds(10)).header(FORWARDED, "1").header(HttpHeaders.ACCEPT, "application/json");
        String auth = headers.getHeaderString(HttpHeaders.AUTHORIZATION);
        if (auth != null) {
            request.header(HttpHeaders.AUTHORIZATION, auth);
        }
        try {
            return Optional.of(http.send(request.GET().build(), HttpResponse.BodyHandlers.ofByteArray()));
        } catch (IOException e) {
            throw ApiException.unavailable("the instance holding a session this read needs is not reachable; try again shortly", 2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted", 1);
        }
    }

    /**
     * Returns if this instance can answer for {@code sessionId} from its own partition of {@code store} now: the
     * application is RUNNING and the session's partition is one of its active tasks, restored. Otherwise throws 503
     * with {@code Retry-After}: right after a restart, or while a rebalance moves the partition, a session that
     * exists must read as "try again", never as "not found". For reads and writes that are not forwarded (see
     * {@link #serveLocallyOrForward} for reads that are).
     */
    public static void requireLocal(KafkaStreams streams, String store, String sessionId) {
        KafkaStreams.State state = streams.state();
        if (state != KafkaStreams.State.RUNNING) {
            throw ApiException.unavailable("the state here is " + state.name().toLowerCase(Locale.ROOT) + "; try again shortly", 1);
        }
        KeyQueryMetadata owner = streams.queryMetadataForKey(store, sessionId, new SessionPartitioner());
        if (owner == null || owner.equals(KeyQueryMetadata.NOT_AVAILABLE)) {
            throw ApiException.unavailable("the session's partition is being reassigned; try again shortly", 1);
        }
        if (!holdsLocally(streams, store, owner.partition())) {
            throw ApiException.unavailable("this instance does not hold the session's partition (" + owner.partition()
                    + ") right now: a restart or a rebalance is moving it; try again shortly", 2);
        }
    }

    /** Whether this instance has the store's partition as an active task. */
    private static boolean holdsLocally(KafkaStreams streams, String store, int partition) {
        try {
            // the store handle is resolved lazily: touching it says whether the partition is here
            streams.store(StoreQueryParameters.fromNameAndType(store, QueryableStoreTypes.keyValueStore()).withPartition(partition))
                    .approximateNumEntries();
            return true;
        } catch (InvalidStateStoreException e) {
            return false;
        }
    }

    private Response forward(HostInfo host, UriInfo uri, HttpHeaders headers) {
        URI target = uri.getRequestUriBuilder().scheme("http").host(host.host()).port(host.port()).build();
        var request = HttpRequest.newBuilder(target).timeout(Duration.ofSeconds(10)).header(FORWARDED, "1");
        String auth = headers.getHeaderString(HttpHeaders.AUTHORIZATION);
        if (auth != null) {
            request.header(HttpHeaders.AUTHORIZATION, auth);
        }
        String accept = headers.getHeaderString(HttpHeaders.ACCEPT);
        if (accept != null) {
            request.header(HttpHeaders.ACCEPT, accept);
        }
        try {
            HttpResponse<byte[]> answer = http.send(request.GET().build(), HttpResponse.BodyHandlers.ofByteArray());
            var response = Response.status(answer.statusCode()).entity(answer.body());
            answer.headers().firstValue("content-type").ifPresent(type -> response.header("Content-Type", type));
            answer.headers().firstValue("retry-after").ifPresent(after -> response.header("Retry-After", after));
            return response.build();
        } catch (IOException e) {
            throw ApiException.unavailable("the instance holding this session is not reachable; try again shortly", 2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted", 1);
        }
    }
}
