package dev.tether.session.kafka;

import dev.tether.avro.AppendedEvent;
import dev.tether.avro.ClaimSession;
import dev.tether.avro.CommandPayload;
import dev.tether.avro.CommandReply;
import dev.tether.avro.EraseSession;
import dev.tether.avro.MigrateSession;
import dev.tether.avro.SessionCommand;
import dev.tether.core.auth.Role;
import dev.tether.core.auth.TetherPrincipal;
import dev.tether.kit.kafka.EventAvro;
import dev.tether.kit.kafka.SessionCommands;
import dev.tether.session.domain.Command;
import dev.tether.session.domain.CommandEnvelope;
import dev.tether.session.domain.Decision;
import dev.tether.session.domain.SessionHead;
import java.util.EnumSet;

/** The session-service's edge between its domain commands and verdicts and their Avro form. Stateless. */
public final class CommandAvro {

    public static final String APPEND_EVENTS = SessionCommands.APPEND_EVENTS;
    public static final String CLAIM_SESSION = "claim_session";
    public static final String MIGRATE_SESSION = "migrate_session";
    public static final String ERASE_SESSION = "erase_session";

    private CommandAvro() {}

    public static SessionCommand toAvro(CommandEnvelope envelope, String replyTo) {
        var payload = CommandPayload.newBuilder();
        String type;
        Command command = envelope.command();
        if (command instanceof Command.AppendEvents a) {
            type = APPEND_EVENTS;
            payload.setAppendEvents(new dev.tether.avro.AppendEvents(a.events().stream().map(EventAvro::toAvro).toList(),
                    a.expectedSeq(), a.epoch(), a.sessionStartedAt()));
        } else if (command instanceof Command.ClaimSession c) {
            type = CLAIM_SESSION;
            payload.setClaimSession(new ClaimSession(c.workerId(), c.harnessVersion(), c.rollout()));
        } else if (command instanceof Command.MigrateSession m) {
            type = MIGRATE_SESSION;
            payload.setMigrateSession(new MigrateSession(m.toVersion()));
        } else if (command instanceof Command.EraseSession e) {
            type = ERASE_SESSION;
            payload.setEraseSession(new EraseSession(e.reason(), e.epoch(), e.sessionStartedAt()));
        } else {
            throw new IllegalStateException("unhandled command " + command.getClass().getName());
        }
        TetherPrincipal principal = envelope.principal();
        return SessionCommand.newBuilder()
                .setCommandId(envelope.commandId())
                .setSessionId(envelope.sessionId())
                .setTenantId(envelope.tenantId())
                .setIssuedAt(envelope.issuedAt())
                .setPrincipal(SessionCommands.principal(principal))
                .setReplyTo(replyTo)
                .setType(type)
                .setPayload(payload.build())
                .build();
    }

    /**
     * The domain command; throws {@link IllegalArgumentException} for a command type this version does not know, or one
     * without the payload its type names (another writer's: thrown on as a NullPointerException, it would stop the
     * sequencer's partition at every retry of the command).
     */
    public static CommandEnvelope fromAvro(SessionCommand c) {
        CommandPayload p = c.getPayload();
        Command command = switch (c.getType()) {
            case APPEND_EVENTS -> {
                var a = payload(p.getAppendEvents(), c);
                yield new Command.AppendEvents(a.getEvents().stream().map(EventAvro::fromAvro).toList(), a.getExpectedSeq(), a.getEpoch(),
                        a.getSessionStartedAt());
            }
            case CLAIM_SESSION -> {
                var claim = payload(p.getClaimSession(), c);
                yield new Command.ClaimSession(claim.getWorkerId(), claim.getHarnessVersion(), claim.getRollout());
            }
            case MIGRATE_SESSION -> new Command.MigrateSession(payload(p.getMigrateSession(), c).getToVersion());
            case ERASE_SESSION -> {
                var erase = payload(p.getEraseSession(), c);
                yield new Command.EraseSession(erase.getReason(), erase.getEpoch(), erase.getSessionStartedAt());
            }
            default -> throw new IllegalArgumentException("unknown command type '" + c.getType() + "'");
        };
        var roles = EnumSet.noneOf(Role.class);
        c.getPrincipal().getRoles().forEach(r -> Role.fromWireName(r).ifPresent(roles::add));
        return new CommandEnvelope(c.getCommandId(), c.getSessionId(), c.getTenantId(),
                new TetherPrincipal(c.getPrincipal().getId(), c.getTenantId(), roles), c.getIssuedAt(), command);
    }

    private static <T> T payload(T payload, SessionCommand c) {
        if (payload == null) {
            throw new IllegalArgumentException("a command of type '" + c.getType() + "' without its payload");
        }
        return payload;
    }

    /**
     * The verdict for the caller. A rejection reports the session's position only when the caller
     * may see the session at all (not for "not found").
     */
    public static CommandReply reply(SessionCommand command, Decision decision, SessionHead before) {
        var reply = CommandReply.newBuilder()
                .setCommandId(command.getCommandId())
                .setSessionId(command.getSessionId())
                .setReplyTo(command.getReplyTo());
        if (decision instanceof Decision.Accepted a) {
            SessionHead after = a.head();
            SessionHead now = after != null ? after : before;
            long lastSeq = now == null ? 0 : now.lastSeq();
            long epoch = now == null ? 0 : now.epoch();
            return reply.setAccepted(true)
                    .setAppended(a.appended().stream().map(x -> new AppendedEvent(x.eventId(), x.seq(), x.duplicate(), x.type())).toList())
                    .setLastSeq(lastSeq)
                    .setEpoch(epoch)
                    .setRejection(null)
                    .setResumeReason(a.resumeReason() == null ? null : a.resumeReason().name())
                    .setSessionStartedAt(now == null ? null : now.startedAt())
                    .setHarnessVersion(now == null ? null : now.harnessVersion())
                    .setModelId(now == null ? null : now.modelId())
                    .build();
        }
        var r = (Decision.Rejected) decision;
        boolean visible = before != null && r.reason() != dev.tether.session.domain.Rejection.NOT_FOUND;
        return reply.setAccepted(false)
                .setAppended(java.util.List.of())
                .setLastSeq(visible ? before.lastSeq() : 0)
                .setEpoch(visible ? before.epoch() : 0)
                .setRejection(new dev.tether.avro.Rejection(r.reason().wireName(), r.message(), r.field()))
                .setResumeReason(null)
                .build();
    }
}
