package dev.tether.kit.service.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.kit.kafka.SessionPartitioner;
import io.smallrye.mutiny.Multi;
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
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.LagInfo;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Sends a request to the instance that holds the session's partition (Kafka Streams interactive
 * queries; every instance advertises itself with {@code quarkus.kafka-streams.application-server}).
 * A request for a session this instance holds is served here; any other is forwarded once, with the
 * caller's credentials (and body, for a POST), and its answer returned as it is. A forwarded request
 * is never forwarded again: the instance it reaches serves it if it holds the session's partition and
 * answers 503 otherwise (a rebalance moved the partition after the sender looked), never a "not found"
 * read from partitions that are not the session's. While the owner is unknown (a rebalance) the answer
 * is 503 with {@code Retry-After}. A read over all sessions asks every other instance for its own
 * partitions ({@link #gatherFromOthers}). An answer names no instance's address (the log does). Thread-safe.
 */
@ApplicationScoped
public class OwnerRouting {

    private static final Logger LOG = Logger.getLogger(OwnerRouting.class);

    /** The header marking a request one instance sent to another; such a request is never forwarded again. */
    public static final String FORWARDED = "X-Tether-Forwarded";
    private static final String LAST_EVENT_ID = "Last-Event-ID";

    /** How long a forwarded GET may take. */
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(10);
    /** How long a forwarded POST may take: the owner may wait for a verdict of the sequencer (15 s by default) first. */
    private static final Duration WRITE_TIMEOUT = Duration.ofSeconds(45);
    /** How long an instance may take to answer its part of a read over all sessions. */
    private static final Duration GATHER_TIMEOUT = Duration.ofSeconds(8);

    private final Instance<KafkaStreams> streams;
    private final boolean advertised;
    private final HostInfo self;
    private final long warmCopyMaxLag;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();

    OwnerRouting(Instance<KafkaStreams> streams,
                 @ConfigProperty(name = "quarkus.kafka-streams.application-server") Optional<String> applicationServer,
                 @ConfigProperty(name = "tether.streams.warm-copy-max-lag", defaultValue = "1000") long warmCopyMaxLag) {
        this.streams = streams;
        this.advertised = applicationServer.isPresent();
        this.self = applicationServer.map(HostInfo::buildFromEndpoint).orElse(null);
        this.warmCopyMaxLag = warmCopyMaxLag;
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
     * throws {@link RemoteAnswer} with the owner's answer to the same GET.
     */
    public void serveLocallyOrForward(String store, String sessionId, UriInfo uri, HttpHeaders headers) {
        owner(store, sessionId, headers).ifPresent(host -> {
            throw new RemoteAnswer(forward(host, uri, headers, null));
        });
    }

    /**
     * Like {@link #serveLocallyOrForward(String, String, UriInfo, HttpHeaders)} for a POST: the owner gets the same
     * request with {@code body}, and only the owner executes it (this instance does nothing but return its answer).
     * A forwarded POST that gets no answer in time answers 503: whether the owner executed it is then unknown, so
     * only a request that is safe to repeat should be forwarded.
     */
    public void serveLocallyOrForward(String store, String sessionId, UriInfo uri, HttpHeaders headers, byte[] body) {
        owner(store, sessionId, headers).ifPresent(host -> {
            throw new RemoteAnswer(forward(host, uri, headers, body));
        });
    }

    /**
     * Like {@link #serveLocallyOrForward(String, String, UriInfo, HttpHeaders)} for a read that a warm copy may answer
     * while the session's partition changes hands: when the owner does not answer (an instance killed a moment ago, which
     * the group has not noticed yet), or this instance is the owner but not running its task yet (it is taking the
     * partition over), and this instance keeps a copy of the partition — a standby, or the task restoring — no more than
     * {@code tether.streams.warm-copy-max-lag} records (default 1,000) behind its changelog in each of {@code copied},
     * returns the partition: the caller reads that copy ({@link InteractiveStores#copy}). Such an answer is as fresh as
     * the copy: a read with a seq to reach waits for it as usual and answers 503 if it is not there. Empty when the
     * read is answered here as usual; throws {@link RemoteAnswer} with the owner's answer when it is forwarded, and 503
     * as before when neither the owner nor a warm copy can answer (this instance taking the partition over without a warm
     * copy of it among them).
     */
    public OptionalInt serveLocallyOrForwardOrCopy(String store, String sessionId, UriInfo uri, HttpHeaders headers,
                                                   List<String> copied) {
        if (!streams.isResolvable() || !advertised) {
            return OptionalInt.empty();
        }
        KafkaStreams kafkaStreams = streams.get();
        KeyQueryMetadata owner = kafkaStreams.queryMetadataForKey(store, sessionId, new SessionPartitioner());
        if (owner == null || owner.equals(KeyQueryMetadata.NOT_AVAILABLE)) {
            throw ApiException.unavailable("the session's partition is being reassigned; try again shortly", 1);
        }
        int partition = owner.partition();
        boolean active = holdsLocally(kafkaStreams, store, partition);
        if (owner.activeHost().equals(self) || active) {
            if (active && kafkaStreams.state() == KafkaStreams.State.RUNNING) {
                return OptionalInt.empty();
            }
            Optional<Integer> copy = warmCopy(kafkaStreams, partition, copied);
            if (copy.isEmpty() && !active) {
                throw takingOver(partition);
            }
            return copy.map(OptionalInt::of).orElse(OptionalInt.empty());
        }
        if (forwarded(headers)) {
            throw notHeldHere();
        }
        HttpResponse<byte[]> answer;
        try {
            answer = http.send(request(owner.activeHost(), uri, headers, null, READ_TIMEOUT), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            return OptionalInt.of(warmCopy(kafkaStreams, partition, copied).orElseThrow(
                    () -> ApiException.unavailable("the instance holding this session is not reachable; try again shortly", 2)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted", 1);
        }
        throw new RemoteAnswer(relay(answer));
    }

    /**
     * {@code partition} if this instance keeps a copy of it in every store of {@code copied} (standby, or active and
     * restoring) within {@link #warmCopyMaxLag} records of its changelog's end. Asks the broker for the changelogs'
     * ends: only for a read whose owner cannot answer.
     */
    private Optional<Integer> warmCopy(KafkaStreams kafkaStreams, int partition, List<String> copied) {
        Map<String, Map<Integer, LagInfo>> lags;
        try {
            lags = kafkaStreams.allLocalStorePartitionLags();
        } catch (RuntimeException e) {
            return Optional.empty(); // the broker did not answer, or the application is not running
        }
        for (String store : copied) {
            LagInfo lag = lags.getOrDefault(store, Map.of()).get(partition);
            if (lag == null || lag.offsetLag() > warmCopyMaxLag) {
                return Optional.empty();
            }
        }
        return Optional.of(partition);
    }

    /**
     * The instance to forward to, or empty to serve here. A request that was forwarded already is never forwarded again:
     * when the session's partition is not here either, 503 ({@link #notHeldHere}).
     */
    private Optional<HostInfo> owner(String store, String sessionId, HttpHeaders headers) {
        Optional<HostInfo> owner = ownerElsewhere(store, sessionId);
        if (owner.isPresent() && forwarded(headers)) {
            throw notHeldHere();
        }
        return owner;
    }

    private static boolean forwarded(HttpHeaders headers) {
        return headers.getHeaderString(FORWARDED) != null;
    }

    /**
     * The answer to a request sent here as the session's owner when its partition is elsewhere: the sender's view of the
     * group is older than this instance's (a rebalance moved the partition on), so "try again", which the sender relays;
     * never this instance's miss (a 404 for a session that exists), and never a second forward (a loop between two
     * instances whose views differ).
     */
    private static ApiException notHeldHere() {
        return ApiException.unavailable("this instance was sent the request as the session's owner but does not hold its "
                + "partition (a rebalance is moving it, or the request carried " + FORWARDED + ", which only Tether's own "
                + "instances send); try again shortly", 1);
    }

    /**
     * The instance holding {@code sessionId}'s partition of {@code store} when it is another one; empty when this
     * instance holds it or runs alone. 503 with {@code Retry-After} while the owner is unknown (a rebalance), and while
     * this instance is the owner but does not hold the partition as a running task yet (it restores it, taking it over):
     * a read over this instance's other partitions would not find the session.
     */
    private Optional<HostInfo> ownerElsewhere(String store, String sessionId) {
        if (!streams.isResolvable() || !advertised) {
            return Optional.empty();
        }
        KafkaStreams kafkaStreams = streams.get();
        KeyQueryMetadata owner = kafkaStreams.queryMetadataForKey(store, sessionId, new SessionPartitioner());
        if (owner == null || owner.equals(KeyQueryMetadata.NOT_AVAILABLE)) {
            throw ApiException.unavailable("the session's partition is being reassigned; try again shortly", 1);
        }
        if (holdsLocally(kafkaStreams, store, owner.partition())) {
            return Optional.empty();
        }
        if (owner.activeHost().equals(self)) {
            throw takingOver(owner.partition());
        }
        return Optional.of(owner.activeHost());
    }

    /**
     * The answer to a read of a session whose partition the group gave this instance and that is not running here yet:
     * a read over this instance's other partitions would not find the session.
     */
    private static ApiException takingOver(int partition) {
        return ApiException.unavailable("this instance is taking the session's partition (" + partition + ") over; try again shortly", 1);
    }

    /**
     * For a read over all sessions (a list): the answers of every other instance to the same GET, each sent with
     * {@value #FORWARDED} so it answers for its own partitions only; the caller merges them with its own. Empty when
     * the request is itself forwarded or this instance runs alone. All or nothing: throws 503 with
     * {@code Retry-After} while some partition of {@code store} (of {@code partitions}) has no instance (a
     * rebalance) or an instance does not answer in time, rather than leave a part out; an instance answering
     * anything but 200 has its answer returned as it is ({@link RemoteAnswer}).
     *
     * @return the bodies of the other instances' 200 answers
     */
    public List<byte[]> gatherFromOthers(String store, int partitions, UriInfo uri, HttpHeaders headers) {
        if (!streams.isResolvable() || !advertised || headers.getHeaderString(FORWARDED) != null) {
            return List.of();
        }
        KafkaStreams kafkaStreams = streams.get();
        KafkaStreams.State state = kafkaStreams.state();
        if (state != KafkaStreams.State.RUNNING) {
            throw ApiException.unavailable("the state here is " + state.name().toLowerCase(Locale.ROOT) + "; try again shortly", 1);
        }
        Collection<StreamsMetadata> instances = kafkaStreams.streamsMetadataForStore(store);
        Set<Integer> missing = unowned(instances, partitions);
        // at this address but not here: a killed predecessor on the same address that the group has not expired yet
        instances.stream().filter(instance -> instance.hostInfo().equals(self)).flatMap(instance -> instance.topicPartitions().stream())
                .map(tp -> tp.partition()).distinct().filter(p -> !holdsLocally(kafkaStreams, store, p)).forEach(missing::add);
        if (!missing.isEmpty()) {
            throw ApiException.unavailable("partitions " + missing + " are being reassigned; try again shortly", 1);
        }
        var answers = new ArrayList<CompletableFuture<HttpResponse<byte[]>>>();
        var hosts = new ArrayList<HostInfo>();
        for (StreamsMetadata instance : instances) {
            if (!instance.hostInfo().equals(self)) {
                hosts.add(instance.hostInfo());
                answers.add(http.sendAsync(request(instance.hostInfo(), uri, headers, null, GATHER_TIMEOUT),
                        HttpResponse.BodyHandlers.ofByteArray()));
            }
        }
        var bodies = new ArrayList<byte[]>();
        long deadline = System.nanoTime() + GATHER_TIMEOUT.toNanos();
        int i = 0;
        try {
            for (; i < answers.size(); i++) {
                HttpResponse<byte[]> answer = answers.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (answer.statusCode() != 200) {
                    throw new RemoteAnswer(relay(answer));
                }
                bodies.add(answer.body());
            }
            return bodies;
        } catch (TimeoutException | ExecutionException e) {
            HostInfo host = hosts.get(i);
            LOG.warnf("the instance at %s:%d did not answer for its partitions of a list in time: %s", host.host(), host.port(),
                    e instanceof ExecutionException ? e.getCause() : e);
            throw ApiException.unavailable("another instance did not answer for its partitions in time; try again shortly", 2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted", 1);
        } finally {
            answers.forEach(a -> a.cancel(true));
        }
    }

    /**
     * {@link #gatherFromOthers(String, int, UriInfo, HttpHeaders)} for a list: the elements of each other instance's
     * array {@code field} (e.g. {@code sessions} of {@code {"sessions": [...]}}), all of them together, for the caller
     * to merge with its own. 503 if an answer cannot be read.
     */
    public List<JsonNode> gatherFromOthers(String store, int partitions, UriInfo uri, HttpHeaders headers, ObjectMapper json,
                                           String field) {
        var items = new ArrayList<JsonNode>();
        for (byte[] answer : gatherFromOthers(store, partitions, uri, headers)) {
            try {
                json.readTree(answer).path(field).forEach(items::add);
            } catch (IOException e) {
                throw ApiException.unavailable("another instance answered its part of the list unreadably; try again shortly", 1);
            }
        }
        return items;
    }

    /**
     * A page of a list gathered from every instance, as {@code {<field>: [...], "nextAfter": ...}}. {@code local} is
     * this instance's part: its first {@code limit + 1} elements after the page's cursor in {@code order} (all of them
     * when {@code limit} is null), so that the merge knows whether a next page starts after the page. A forwarded request
     * (another instance gathering) is answered that part whole; otherwise the other instances' parts
     * ({@link #gatherFromOthers(String, int, UriInfo, HttpHeaders, ObjectMapper, String)}, asked the same query) are
     * merged with it in {@code order}, cut to {@code limit}, and {@code nextAfter} is the cursor ({@code cursorOf}) of the
     * page's last element when more follow.
     */
    public ObjectNode page(String store, int partitions, UriInfo uri, HttpHeaders headers,
                           ObjectMapper json, String field, List<JsonNode> local, Comparator<JsonNode> order, Integer limit,
                           Function<JsonNode, String> cursorOf) {
        var out = json.createObjectNode();
        var page = out.putArray(field);
        if (headers.getHeaderString(FORWARDED) != null) {
            page.addAll(local);
            return out;
        }
        var all = new ArrayList<>(local);
        all.addAll(gatherFromOthers(store, partitions, uri, headers, json, field));
        all.sort(order);
        int size = limit == null ? all.size() : limit;
        all.stream().limit(size).forEach(page::add);
        if (all.size() > size) {
            out.put("nextAfter", cursorOf.apply(all.get(size - 1)));
        }
        return out;
    }

    /** The partitions (numbers, of any source topic) among {@code partitions} that none of {@code instances} holds. */
    static Set<Integer> unowned(Collection<StreamsMetadata> instances, int partitions) {
        var missing = new TreeSet<Integer>();
        for (int p = 0; p < partitions; p++) {
            missing.add(p);
        }
        instances.forEach(instance -> instance.topicPartitions().forEach(tp -> missing.remove(tp.partition())));
        return missing;
    }

    /**
     * The answer of the instance holding {@code sessionId}'s partition of {@code store} to {@code GET pathAndQuery}
     * (e.g. {@code /v1/sessions/s1/events?fromSeq=1&toSeq=5}), sent with the caller's credentials and marked as
     * forwarded; empty when this instance holds it (or runs alone), so the caller reads it here. For a read that needs
     * another session's data, which {@link #serveLocallyOrForward} cannot route. While the owner is unknown, or not
     * reachable, throws 503 with {@code Retry-After}.
     */
    public Optional<HttpResponse<byte[]>> fetchFromOwner(String store, String sessionId, String pathAndQuery, HttpHeaders headers) {
        Optional<HostInfo> owner = ownerElsewhere(store, sessionId);
        if (owner.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(getJson(owner.get(), pathAndQuery, headers, "the instance holding a session this read needs"));
    }

    /** {@code GET pathAndQuery} of {@code host} as JSON, marked forwarded; 503 when {@code who} is not reachable. */
    private HttpResponse<byte[]> getJson(HostInfo host, String pathAndQuery, HttpHeaders headers, String who) {
        HttpRequest request = forwarded(URI.create("http://" + host.host() + ":" + host.port() + pathAndQuery), headers, READ_TIMEOUT)
                .setHeader(HttpHeaders.ACCEPT, "application/json").GET().build();
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw ApiException.unavailable(who + " is not reachable; try again shortly", 2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted", 1);
        }
    }

    /**
     * For a live stream of one session ({@code text/event-stream}): empty when this instance serves it (it holds the
     * session's partition of {@code store}, or runs alone; a request forwarded to it that it cannot serve answers 503);
     * otherwise the stream of
     * the instance that holds the partition, for the same GET, relayed. That instance is asked {@code GET checkPath}
     * (the session) first, so that a session the caller does not see is this request's 404 (its answer, thrown as
     * {@link RemoteAnswer}) and an instance that cannot answer its 503, rather than a stream that ends at once. The
     * relayed stream ends when the owner's does (when the partition moves on, say): the client opens it again, and is
     * relayed to the new owner. 503 with {@code Retry-After} while the owner is unknown or not reachable. Blocks for the
     * owner's first answer: call it on a worker thread.
     */
    public Optional<Multi<SseReader.Frame>> streamFromOwner(String store, String sessionId, String checkPath, UriInfo uri,
                                                            HttpHeaders headers) {
        Optional<HostInfo> owner = owner(store, sessionId, headers);
        if (owner.isEmpty()) {
            return Optional.empty();
        }
        HostInfo host = owner.get();
        HttpResponse<byte[]> answer = getJson(host, checkPath, headers, "the instance holding this session");
        if (answer.statusCode() != 200) {
            throw new RemoteAnswer(relay(answer));
        }
        URI target = uri.getRequestUriBuilder().scheme("http").host(host.host()).port(host.port()).build();
        return Optional.of(SseRelay.open(http, forwarded(target, headers, null).GET().build(),
                "the live stream of the instance at " + host.host() + ":" + host.port()));
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

    private Response forward(HostInfo host, UriInfo uri, HttpHeaders headers, byte[] body) {
        try {
            HttpRequest request = request(host, uri, headers, body, body == null ? READ_TIMEOUT : WRITE_TIMEOUT);
            return relay(http.send(request, HttpResponse.BodyHandlers.ofByteArray()));
        } catch (IOException e) {
            throw ApiException.unavailable(body == null ? "the instance holding this session is not reachable; try again shortly"
                    : "the instance holding this session did not answer; sending the same request again is safe", 2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted", 1);
        }
    }

    /** The same request to {@code host}, marked forwarded: a GET, or a POST of {@code body}. */
    private static HttpRequest request(HostInfo host, UriInfo uri, HttpHeaders headers, byte[] body, Duration timeout) {
        var request = forwarded(uri.getRequestUriBuilder().scheme("http").host(host.host()).port(host.port()).build(), headers, timeout);
        if (body == null) {
            return request.GET().build();
        }
        String type = headers.getHeaderString(HttpHeaders.CONTENT_TYPE);
        if (type != null) {
            request.header(HttpHeaders.CONTENT_TYPE, type);
        }
        return request.POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
    }

    /**
     * A request to {@code target} marked forwarded, with the caller's credentials, {@code Accept} and {@code Last-Event-ID};
     * {@code timeout} null for none (a stream).
     */
    private static HttpRequest.Builder forwarded(URI target, HttpHeaders headers, Duration timeout) {
        var request = HttpRequest.newBuilder(target).header(FORWARDED, "1");
        if (timeout != null) {
            request.timeout(timeout);
        }
        for (String name : List.of(HttpHeaders.AUTHORIZATION, HttpHeaders.ACCEPT, LAST_EVENT_ID)) {
            String value = headers.getHeaderString(name);
            if (value != null) {
                request.header(name, value);
            }
        }
        return request;
    }

    /** The headers of another instance's answer that are relayed: those that tell the client how to go on. */
    private static final List<String> RELAYED_HEADERS = List.of("Content-Type", "Retry-After", "WWW-Authenticate", "Allow");

    /**
     * Another instance's answer, as this instance's: status, body, and of its headers type, {@code Retry-After}, and a
     * 401's {@code WWW-Authenticate} and a 405's {@code Allow}.
     */
    private static Response relay(HttpResponse<byte[]> answer) {
        var response = Response.status(answer.statusCode()).entity(answer.body());
        for (String name : RELAYED_HEADERS) {
            answer.headers().allValues(name).forEach(value -> response.header(name, value));
        }
        return response.build();
    }
}
