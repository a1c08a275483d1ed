package dev.tether.kit.service;

import dev.tether.kit.kafka.CommandChannel;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * A service that waits for the sequencer's verdicts ({@link CommandChannel}) is ready once the channel reads them:
 * before that, every write would answer 503. Services without a channel are always ready as far as this check goes.
 */
@Readiness
@ApplicationScoped
public class CommandChannelReadinessCheck implements HealthCheck {

    private final Instance<CommandChannel> channel;

    CommandChannelReadinessCheck(Instance<CommandChannel> channel) {
        this.channel = channel;
    }

    @Override
    public HealthCheckResponse call() {
        var response = HealthCheckResponse.named("tether-command-replies");
        if (!channel.isResolvable()) {
            return response.up().withData("state", "none").build();
        }
        CommandChannel.State state = channel.get().state();
        return response.status(state == CommandChannel.State.READING).withData("state", state.name()).build();
    }
}
