package dev.tether.kit.service;

import dev.tether.kit.kafka.RegistryConnection.Status;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready while the schema registry answers (the last lookup or probe of {@link RegistryAccess} got an answer), or has
 * failed for less than {@code tether.registry.unready-after} after answering before: a probe that timed out once on a
 * loaded machine does not take the service out of its load balancer. While it does not, the service says so here,
 * naming the registry and why; it keeps serving what it can meanwhile (reads from its stores, writes whose schemas it
 * already knows), and what it cannot answers 503 with {@code Retry-After}.
 */
@Readiness
@ApplicationScoped
public class RegistryReadinessCheck implements HealthCheck {

    static final String NAME = "tether-schema-registry";

    private final RegistryAccess registry;
    private final Duration unreadyAfter;

    RegistryReadinessCheck(RegistryAccess registry, TetherConfig config) {
        this.registry = registry;
        this.unreadyAfter = config.registry().unreadyAfter();
    }

    @Override
    public HealthCheckResponse call() {
        Status status = registry.connection().status();
        return HealthCheckResponse.named(NAME)
                .status(ready(status, unreadyAfter, Instant.now()))
                .withData("registry", registry.connection().settings().url())
                .withData("state", status.reachable() ? "reachable" : "unreachable")
                .withData("since", status.since().toString())
                .withData("detail", status.detail())
                .withData("unreadyAfter", unreadyAfter.toString())
                .build();
    }

    /**
     * Whether {@code status} leaves the service ready at {@code now}: the registry answers, or it answered before and
     * has been failing for less than {@code unreadyAfter}.
     */
    static boolean ready(Status status, Duration unreadyAfter, Instant now) {
        return status.reachable()
                || (status.answeredBefore() && Duration.between(status.since(), now).compareTo(unreadyAfter) < 0);
    }
}
