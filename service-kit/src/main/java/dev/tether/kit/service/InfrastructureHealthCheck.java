package dev.tether.kit.service;

import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Ready once the topics and schemas were verified at start-up; until then, it says what start-up waits for. */
@Readiness
@ApplicationScoped
public class InfrastructureHealthCheck implements HealthCheck {

    private final InfrastructureInit init;

    InfrastructureHealthCheck(InfrastructureInit init) {
        this.init = init;
    }

    @Override
    public HealthCheckResponse call() {
        var status = init.status();
        var response = HealthCheckResponse.named("tether-topics-and-schemas");
        if (status == null) {
            return response.down().withData("reason", init.waitingFor()).build();
        }
        return response.up()
                .withData("createdTopics", String.join(",", status.createdTopics()))
                .withData("verifiedTopics", String.join(",", status.verifiedTopics()))
                .withData("subjects", String.join(",", status.subjects()))
                .withData("warnings", String.join("; ", status.warnings()))
                .build();
    }
}
