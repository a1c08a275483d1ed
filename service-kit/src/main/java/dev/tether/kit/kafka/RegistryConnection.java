package dev.tether.kit.kafka;

import io.apicurio.registry.resolver.client.RegistryClientFacade;
import io.apicurio.registry.resolver.client.RegistryClientFacadeImpl;
import io.apicurio.registry.rest.client.RegistryClient;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClosedException;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One process's way to the schema registry: its own small Vert.x instance (one event loop; not Quarkus's, not the
 * serde's default shared one) and a web client whose every request has the deadlines of {@link RegistrySettings}, the
 * registry client the serdes look schemas up with ({@link #facade()}), and what the last call found
 * ({@link #status()}), for the readiness checks.
 *
 * <p>Why its own: the Apicurio serde's default client has no request timeout at all, so one lost answer parks the
 * calling thread in {@code CompletableFuture.get()} forever (issue 15 §1); and a blocking call from a thread of the
 * Vert.x instance that serves the call would deadlock.
 *
 * <p>Thread-safe: any number of serdes and threads share one. {@link #close()} it after the serdes that use it.
 */
public final class RegistryConnection implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RegistryConnection.class);

    /**
     * What the last call to the registry found.
     *
     * @param reachable      whether it answered (any answer, also "not found", counts)
     * @param since          when it last changed
     * @param detail         why it is not reachable, or what it answered
     * @param answeredBefore whether it ever answered this process
     */
    public record Status(boolean reachable, Instant since, String detail, boolean answeredBefore) {}

    /** How long an idle connection stays in the pool. */
    static final Duration KEEP_ALIVE = Duration.ofSeconds(60);

    private final RegistrySettings settings;
    private final Vertx vertx;
    private final WebClient web;
    private final RegistryClientFacade facade;
    private final AtomicReference<Status> status = new AtomicReference<>(new Status(false, Instant.now(), "not asked yet", false));

    private RegistryConnection(RegistrySettings settings) {
        this.settings = settings;
        this.vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1).setInternalBlockingPoolSize(1));
        int requestMillis = (int) settings.requestTimeout().toMillis();
        // every request has its own deadline (no byte for requestTimeout fails it: DeadlineRequestAdapter, probe()).
        // No idle timeout on the connections: it closed a pooled one just as the next probe, as far apart as the
        // timeout, was sent on it ("Connection was closed", readiness DOWN with the registry answering). Idle pooled
        // connections are dropped after KEEP_ALIVE instead, long before the registry's own idle timeout (30 min).
        this.web = WebClient.create(vertx, new WebClientOptions()
                .setConnectTimeout((int) settings.connectTimeout().toMillis())
                .setKeepAlive(true)
                .setKeepAliveTimeout((int) KEEP_ALIVE.toSeconds()));
        var adapter = new DeadlineRequestAdapter(web, requestMillis);
        adapter.setBaseUrl(settings.url());
        this.facade = new GuardedRegistryClient(new RegistryClientFacadeImpl(new RegistryClient(adapter)), this);
    }

    /** A connection to the registry of {@code settings}; nothing is sent until a call needs it. */
    public static RegistryConnection open(RegistrySettings settings) {
        return new RegistryConnection(settings);
    }

    public RegistrySettings settings() {
        return settings;
    }

    /** The registry client for Apicurio's serdes: every call has the deadlines, and fails with {@link RegistryUnavailableException}. */
    public RegistryClientFacade facade() {
        return facade;
    }

    /** What the last call or probe found. */
    public Status status() {
        return status.get();
    }

    /**
     * Asks the registry whether it answers ({@code GET /system/info}), within the deadlines, and records the result.
     * Blocks at most the connect and request timeouts (and a second).
     */
    public Status probe() {
        long deadline = settings.connectTimeout().plus(settings.requestTimeout()).toMillis() + 1_000;
        try {
            int code;
            try {
                code = systemInfo(deadline);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof HttpClosedException)) {
                    throw e;
                }
                // the pooled connection it went out on was closed by the other side (a restarted registry, a proxy):
                // that says nothing of the registry, a fresh connection does
                code = systemInfo(deadline);
            }
            if (code >= 500) {
                failed(new RegistryUnavailableException(settings.url(), "answered HTTP " + code, null));
            } else {
                answered("answered HTTP " + code);
            }
        } catch (TimeoutException e) {
            failed(new RegistryUnavailableException(settings.url(), "did not answer within " + deadline + " ms", e));
        } catch (ExecutionException e) {
            failed(new RegistryUnavailableException(settings.url(), GuardedRegistryClient.describe(e.getCause(), settings), e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return status();
    }

    private int systemInfo(long deadlineMillis) throws ExecutionException, TimeoutException, InterruptedException {
        return web.getAbs(settings.url() + "/system/info")
                .timeout(settings.requestTimeout().toMillis())
                .send()
                .toCompletionStage().toCompletableFuture()
                .get(deadlineMillis, TimeUnit.MILLISECONDS)
                .statusCode();
    }

    void answered(String what) {
        Status before = status.get();
        if (!before.reachable()) {
            status.set(new Status(true, Instant.now(), what, true));
            if (!"not asked yet".equals(before.detail())) {
                LOG.info("the schema registry at {} answers again", settings.url());
            }
        }
    }

    void failed(RegistryUnavailableException e) {
        Status before = status.get();
        status.set(new Status(false, before.reachable() ? Instant.now() : before.since(), e.getMessage(), before.answeredBefore()));
        if (before.reachable() || "not asked yet".equals(before.detail())) {
            LOG.warn("{}", e.getMessage());
        }
    }

    /** Stops the Vert.x instance: calls under way fail. Idempotent. */
    @Override
    public void close() {
        web.close();
        try {
            vertx.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            LOG.debug("closing the registry client's Vert.x instance", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
