package dev.tether.kit.service;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import org.apache.kafka.streams.KafkaStreams;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * A service with a Kafka Streams application is ready once it first runs: before that, every
 * read or write that needs it would answer 503. A rebalance after the first start does not make
 * the service unready (requests meanwhile get 503 and retry). Services without one are always
 * ready as far as this check goes.
 */
@Readiness
@ApplicationScoped
public class StreamsReadinessCheck implements HealthCheck {

    private final Instance<KafkaStreams> streams;
    private volatile boolean ranOnce;

    StreamsReadinessCheck(Instance<KafkaStreams> streams) {
        this.streams = streams;
    }

    @Override
    public HealthCheckResponse call() {
        var response = HealthCheckResponse.named("tether-streams-running");
        if (!streams.isResolvable()) {
            return response.up().withData("state", "none").build();
        }
        KafkaStreams.State state = streams.get().state();
        if (state == KafkaStreams.State.RUNNING) {
            ranOnce = true;
        }
        boolean up = state == KafkaStreams.State.RUNNING || (ranOnce && state == KafkaStreams.State.REBALANCING);
        return response.status(up).withData("state", state.name()).build();
    }
}
