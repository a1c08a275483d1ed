package dev.tether.session.kafka;

import dev.tether.kit.kafka.CommandChannel;
import dev.tether.kit.kafka.CommandVerdict;
import dev.tether.kit.kafka.NoVerdictException;
import dev.tether.session.domain.CommandEnvelope;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Sends a command to the sequencer and waits for its verdict, so a REST call answers with the outcome of its own
 * command ({@link CommandChannel}).
 *
 * <p>If no verdict arrives in time the caller gets 503 with {@code Retry-After} ({@link NoVerdictException}): the
 * command may or may not have been applied, and sending it again with the same eventIds is always safe.
 */
@ApplicationScoped
public class CommandGateway {

    private final CommandChannel channel;

    CommandGateway(CommandChannel channel) {
        this.channel = channel;
    }

    /**
     * The command as it will be written ({@link CommandChannel.Encoded#size()}: its size in {@code session-commands});
     * {@link NoVerdictException} when the registry does not give its schema.
     */
    public CommandChannel.Encoded encode(CommandEnvelope envelope) {
        return channel.encode(CommandAvro.toAvro(envelope, channel.replyTo()));
    }

    /** Sends a command {@link #encode}d and returns the sequencer's verdict; {@link NoVerdictException} when none arrives in time. */
    public CommandVerdict send(CommandChannel.Encoded command) {
        return channel.send(command);
    }
}
