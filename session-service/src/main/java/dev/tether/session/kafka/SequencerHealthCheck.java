package dev.tether.session.kafka;

import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.streams.KafkaStreams;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready once the sequencer runs: before that, every request would answer 503. A rebalance after
 * the first start does not make the service unready (requests meanwhile get 503 and retry).
 */
@Readiness
@ApplicationScoped
public class SequencerHealthCheck implements HealthCheck {

    private final KafkaStreams streams;
    private volatile boolean ranOnce;

    SequencerHealthCheck(KafkaStreams streams) {
        this.streams = streams;
    }

    @Override
    public HealthCheckResponse call() {
        KafkaStreams.State state = streams.state();
        if (state == KafkaStreams.State.RUNNING) {
            ranOnce = true;
        }
        boolean up = state == KafkaStreams.State.RUNNING || (ranOnce && state == KafkaStreams.State.REBALANCING);
        return HealthCheckResponse.named("sequencer").status(up).withData("state", state.name()).build();
    }
}
