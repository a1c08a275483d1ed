package dev.tether.kit.kafka;

import dev.tether.avro.AppendEvents;
import dev.tether.avro.CommandPayload;
import dev.tether.avro.Principal;
import dev.tether.avro.SessionCommand;
import dev.tether.core.auth.Role;
import dev.tether.core.auth.TetherPrincipal;
import dev.tether.core.event.ProposedEvent;
import java.time.Instant;
import java.util.List;

/**
 * The commands other services write to {@code session-commands} (the approval-service's decisions,
 * the executor's results): appends the sequencer decides like any other, with no caller waiting
 * for the verdict. Their eventIds are derived from what caused them, so writing one twice is a
 * no-op at the sequencer. Stateless.
 */
public final class SessionCommands {

    public static final String APPEND_EVENTS = "append_events";

    private SessionCommands() {}

    /** Appends {@code events} to {@code sessionId} in the name of {@code principal}, whichever session is under the id. */
    public static SessionCommand append(String commandId, String sessionId, String tenantId, TetherPrincipal principal,
                                        List<ProposedEvent> events, Instant issuedAt) {
        return append(commandId, sessionId, tenantId, principal, events, issuedAt, null);
    }

    /**
     * Appends {@code events} to {@code sessionId} in the name of {@code principal}, if the session under the id is the one
     * whose first event was accepted at {@code sessionStartedAt} (null: whichever it is). An answer made for a session
     * and still on its way when that session is erased and another made under its id is refused, not taken for the new
     * session's call of the same id.
     */
    public static SessionCommand append(String commandId, String sessionId, String tenantId, TetherPrincipal principal,
                                        List<ProposedEvent> events, Instant issuedAt, Instant sessionStartedAt) {
        return SessionCommand.newBuilder()
                .setCommandId(commandId)
                .setSessionId(sessionId)
                .setTenantId(tenantId)
                .setIssuedAt(issuedAt)
                .setPrincipal(principal(principal))
                .setReplyTo(null)
                .setType(APPEND_EVENTS)
                .setPayload(CommandPayload.newBuilder()
                        .setAppendEvents(new AppendEvents(events.stream().map(EventAvro::toAvro).toList(), null, null, sessionStartedAt))
                        .build())
                .build();
    }

    public static Principal principal(TetherPrincipal principal) {
        return new Principal(principal.id(), principal.roles().stream().map(Role::wireName).sorted().toList());
    }
}
