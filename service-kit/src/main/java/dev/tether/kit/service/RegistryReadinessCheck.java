package dev.tether.kit.service;

import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready while the schema registry answers (the last lookup or probe of {@link RegistryAccess} got an answer). While it
 * does not, the service says so here, naming the registry and why; it keeps serving what it can meanwhile (reads from
 * its stores, writes whose schemas it already knows), and what it cannot answers 503 with {@code Retry-After}.
 */
@Readiness
@ApplicationScoped
public class RegistryReadinessCheck implements HealthCheck {

    static final String NAME = "tether-schema-registry";

    private final RegistryAccess registry;

    RegistryReadinessCheck(RegistryAccess registry) {
        this.registry = registry;
    }

    @Override
    public HealthCheckResponse call() {
        var status = registry.connection().status();
        return HealthCheckResponse.named(NAME)
                .status(status.reachable())
                .withData("registry", registry.connection().settings().url())
                .withData("state", status.reachable() ? "reachable" : "unreachable")
                .withData("since", status.since().toString())
                .withData("detail", status.detail())
                .build();
    }
}
