package dev.tether.approval.kafka;

import dev.tether.core.auth.TetherPrincipal;
import dev.tether.core.event.ProposedEvent;
import dev.tether.kit.kafka.CommandChannel;
import dev.tether.kit.kafka.CommandVerdict;
import dev.tether.kit.kafka.NoVerdictException;
import dev.tether.kit.kafka.SessionCommands;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * Sends an approver's decision to the sequencer, in the approver's own name, and waits for the verdict
 * ({@link CommandChannel}), so the decision endpoint answers with what became of it (another approver or an expiry may
 * have got there first).
 *
 * <p>If no verdict arrives in time the caller gets 503 with {@code Retry-After} ({@link NoVerdictException}): sending
 * the same decision again is safe, its eventId is derived from it.
 */
@ApplicationScoped
public class DecisionGateway {

    private final CommandChannel channel;

    DecisionGateway(CommandChannel channel) {
        this.channel = channel;
    }

    /**
     * Appends {@code decision} to the session in {@code approver}'s name and returns the sequencer's verdict: to the session
     * that started at {@code startedAt} (null: not known), the one the approver decided on; a later session under its id
     * answers not found.
     */
    public CommandVerdict send(String sessionId, String tenantId, TetherPrincipal approver, ProposedEvent decision, Instant startedAt) {
        return channel.send(SessionCommands.append(UUID.randomUUID().toString(), sessionId, tenantId, approver, List.of(decision),
                Instant.now(), startedAt));
    }
}
