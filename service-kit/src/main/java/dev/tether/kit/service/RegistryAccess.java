package dev.tether.kit.service;

import dev.tether.kit.kafka.RegistryConnection;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The service's one connection to the schema registry ({@code tether.registry.*}, with its deadlines): every serde of
 * the service looks schemas up through it ({@link ServiceKafka#avroSerde()}), and it is asked every
 * {@link #PROBE_INTERVAL} whether the registry answers, so the readiness check ({@link RegistryReadinessCheck}) says
 * so even while every schema is already known and nothing else calls it. Closed with the service. Thread-safe.
 */
@ApplicationScoped
public class RegistryAccess {

    /** How often the registry is asked whether it answers. */
    public static final Duration PROBE_INTERVAL = Duration.ofSeconds(5);

    private final RegistryConnection connection;
    private final ScheduledExecutorService prober = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "tether-registry-probe");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean closing;

    RegistryAccess(TetherConfig config) {
        this.connection = RegistryConnection.open(config.registry().settings());
    }

    /** Creating the bean is what starts the probe; early, so readiness knows before anything else asks. */
    void onStart(@Observes @Priority(100) StartupEvent event) {
        prober.scheduleWithFixedDelay(connection::probe, 0, PROBE_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Before Kafka Streams closes: a stream thread waiting for the registry ({@link StreamThreadRecovery}) stops waiting. */
    void onStop(@Observes @Priority(10) ShutdownEvent event) {
        closing = true;
    }

    public RegistryConnection connection() {
        return connection;
    }

    /** Whether the service is shutting down. */
    boolean closing() {
        return closing;
    }

    /** Whether the registry answers a probe now, without waiting. */
    boolean answersNow() {
        return connection.probe().reachable();
    }

    /**
     * Waits until the registry answers a probe, the service shuts down, or {@code max} passes; probes once a second.
     *
     * @return whether the registry answers
     */
    boolean awaitReachable(Duration max) {
        long deadline = System.nanoTime() + max.toNanos();
        while (!closing) {
            if (connection.probe().reachable()) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            try {
                Thread.sleep(1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }

    @PreDestroy
    void close() {
        closing = true;
        prober.shutdownNow();
        connection.close();
    }
}
