package dev.tether.approval.kafka;

import dev.tether.approval.domain.ApprovalItem;
import dev.tether.approval.domain.ApprovalMachine;
import dev.tether.approval.domain.SessionApprovals;
import dev.tether.avro.SessionCommand;
import dev.tether.avro.SessionEvent;
import dev.tether.core.auth.TetherPrincipal;
import dev.tether.core.event.Event;
import dev.tether.core.event.ProposedEvent;
import dev.tether.kit.kafka.EventAvro;
import dev.tether.kit.kafka.SessionCommands;
import dev.tether.kit.kafka.SessionEventKey;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.kafka.TenantIndex;
import dev.tether.kit.tracing.KafkaTracing;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.jboss.logging.Logger;

/**
 * Folds {@code session-events} into each session's approval state ({@link ApprovalMachine#evolve}) and writes what
 * the service answers ({@link ApprovalMachine#react}) to {@code session-commands}, as the approval-service's
 * principal, one command per event. A wall-clock punctuation denies the approvals nobody decided in time
 * ({@link ApprovalMachine#expire}). Exactly-once: the state, the pending index and the commands of one event are
 * committed together, and an event folded already (a replay) changes and sends nothing. Each change of a session's
 * state is signalled ({@link StoreSignals}, the session's id on {@value ApprovalStores#SESSIONS}), so a decision's
 * request waiting to show its result looks again then.
 */
final class ApprovalProcessor implements Processor<SessionEventKey, SessionEvent, String, SessionCommand> {

    static final String COMMANDS_SINK = "commands-sink";

    private static final Logger LOG = Logger.getLogger(ApprovalProcessor.class);

    private final ApprovalMachine.Rules rules;
    private final Duration timeout;
    private final Duration sweepInterval;
    private final KafkaTracing tracing;
    private final StoreSignals signals;
    private ProcessorContext<String, SessionCommand> context;
    private KeyValueStore<String, SessionApprovals> sessions;
    private KeyValueStore<String, String> pending;
    private TenantIndex byTenant;

    ApprovalProcessor(ApprovalMachine.Rules rules, Duration timeout, Duration sweepInterval, KafkaTracing tracing, StoreSignals signals) {
        this.rules = rules;
        this.timeout = timeout;
        this.sweepInterval = sweepInterval;
        this.tracing = tracing;
        this.signals = signals;
    }

    @Override
    public void init(ProcessorContext<String, SessionCommand> context) {
        this.context = context;
        sessions = context.getStateStore(ApprovalStores.SESSIONS);
        pending = context.getStateStore(ApprovalStores.PENDING);
        byTenant = TenantIndex.open(context, ApprovalStores.BY_TENANT, sessions, SessionApprovals::tenantId);
        context.schedule(sweepInterval, PunctuationType.WALL_CLOCK_TIME, now -> sweep(Instant.ofEpochMilli(now)));
    }

    @Override
    public void process(Record<SessionEventKey, SessionEvent> record) {
        String sessionId = record.key().sessionId();
        if (record.value() == null) {
            erase(sessionId);
            return;
        }
        Span span = tracing.startSpan("approvals fold " + record.value().getType(), SpanKind.CONSUMER, record.headers());
        try (Scope ignored = span.makeCurrent()) {
            tracing.inject(Context.current(), record.headers());
            Event event = EventAvro.fromAvro(record.value());
            SessionApprovals before = sessions.get(sessionId);
            if (before != null && event.seq() <= before.lastSeq()) {
                return; // folded already: a replay after a crash or a restart
            }
            if (before == null && !ApprovalMachine.isFirstEvent(event.payload())) {
                // the session's start is not in this state (it was erased, or the state was lost and not restored):
                // without its tenant and tool mode nothing can be decided, so nothing is authorized
                LOG.warnf("skipping %s at seq %d of %s: the session's start is unknown here", event.type(), event.seq(), sessionId);
                return;
            }
            // a decision the sequencer should have refused: evolve fails closed; say so loudly
            ApprovalMachine.ambiguity(before, event).ifPresent(LOG::error);
            SessionApprovals after = ApprovalMachine.evolve(before, event);
            List<ProposedEvent> answers = ApprovalMachine.react(after, event, rules);
            save(before, after);
            for (ProposedEvent answer : answers) {
                send(after, answer, record.timestamp(), record.headers());
            }
        } finally {
            span.end();
        }
    }

    /** Denies, in the service's name, every approval nobody decided within the timeout. */
    private void sweep(Instant now) {
        Set<String> due = new LinkedHashSet<>();
        try (var all = pending.all()) {
            all.forEachRemaining(kv -> {
                PendingIndex.Entry entry = PendingIndex.parse(kv.key);
                if (!entry.requestedAt().plus(timeout).isAfter(now)) {
                    due.add(entry.sessionId());
                }
            });
        }
        for (String sessionId : due) {
            SessionApprovals state = sessions.get(sessionId);
            if (state == null) {
                continue;
            }
            ApprovalMachine.Expiry expiry = ApprovalMachine.expire(state, now, timeout);
            if (!expiry.events().isEmpty()) {
                save(state, expiry.state());
                for (ProposedEvent denial : expiry.events()) {
                    send(state, denial, now.toEpochMilli(), new RecordHeaders());
                }
            }
        }
    }

    private void send(SessionApprovals session, ProposedEvent event, long timestamp, Headers headers) {
        TetherPrincipal service = TetherPrincipal.service(ApprovalMachine.SERVICE_ID, session.tenantId());
        // for this session of the id only: never taken for a later one made after an erasure (its seqs and call ids repeat)
        SessionCommand command = SessionCommands.append(event.eventId(), session.sessionId(), session.tenantId(), service, List.of(event),
                Instant.ofEpochMilli(context.currentSystemTimeMs()), session.startedAt());
        context.forward(new Record<>(session.sessionId(), command, timestamp, headers), COMMANDS_SINK);
    }

    /** Stores the state and keeps the pending index equal to its pending items. */
    private void save(SessionApprovals before, SessionApprovals after) {
        sessions.put(after.sessionId(), after);
        if (before == null) {
            byTenant.add(after.tenantId(), after.sessionId());
        }
        Set<String> was = keys(before);
        Set<String> is = keys(after);
        for (String key : was) {
            if (!is.contains(key)) {
                pending.delete(key);
            }
        }
        for (ApprovalItem item : after.pendingItems()) {
            String key = PendingIndex.key(item);
            if (!was.contains(key)) {
                pending.put(key, item.id());
            }
        }
        signals.changed(ApprovalStores.SESSIONS, after.sessionId());
    }

    private static Set<String> keys(SessionApprovals state) {
        var keys = new HashSet<String>();
        if (state != null) {
            state.pendingItems().forEach(i -> keys.add(PendingIndex.key(i)));
        }
        return keys;
    }

    /** The session was erased (a tombstone per event): its state and index entries go, once. */
    private void erase(String sessionId) {
        SessionApprovals state = sessions.get(sessionId);
        if (state == null) {
            return;
        }
        new ArrayList<>(keys(state)).forEach(pending::delete);
        sessions.delete(sessionId);
        byTenant.remove(state.tenantId(), sessionId);
        signals.changed(ApprovalStores.SESSIONS, sessionId);
    }
}
