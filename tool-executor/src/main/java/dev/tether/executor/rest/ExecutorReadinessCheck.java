package dev.tether.executor.rest;

import dev.tether.executor.kafka.Executor;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Ready once the executor takes requests; says how commands are isolated on this host. */
@Readiness
@ApplicationScoped
public class ExecutorReadinessCheck implements HealthCheck {

    private final Executor executor;

    ExecutorReadinessCheck(Executor executor) {
        this.executor = executor;
    }

    @Override
    public HealthCheckResponse call() {
        var response = HealthCheckResponse.named("tool-executor");
        if (executor.isolation() != null) {
            response.withData("isolation", executor.isolation().toString());
        }
        return (executor.ready() ? response.up() : response.down().withData("reason", "joining the group"))
                .build();
    }
}
