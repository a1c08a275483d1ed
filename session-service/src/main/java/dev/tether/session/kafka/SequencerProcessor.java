package dev.tether.session.kafka;

import dev.tether.avro.CommandReply;
import dev.tether.avro.SessionCommand;
import dev.tether.avro.SessionEvent;
import dev.tether.core.auth.TetherPrincipal;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.Event;
import dev.tether.core.event.InvalidEventException;
import dev.tether.core.id.DerivedIds;
import dev.tether.core.id.StoreKey;
import dev.tether.kit.kafka.EventAvro;
import dev.tether.kit.kafka.SessionEventKey;
import dev.tether.kit.kafka.StoreFormatException;
import dev.tether.kit.tracing.KafkaTracing;
import dev.tether.session.domain.Command;
import dev.tether.session.domain.CommandEnvelope;
import dev.tether.session.domain.Decision;
import dev.tether.session.domain.HarnessVersion;
import dev.tether.session.domain.Rejection;
import dev.tether.session.domain.Sequencer;
import dev.tether.session.domain.SessionHead;
import dev.tether.session.domain.SessionSummary;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.jboss.logging.Logger;

/**
 * The only writer of {@code session-events}. For each command of {@code session-commands} it
 * loads the session's head, lets {@link Sequencer#decide} judge it, and in the same exactly-once
 * transaction appends the accepted events, updates its stores and answers the waiting caller on
 * {@code session-replies}. Besides its context and stores it keeps the heads it wrote last, decoded
 * ({@link #recentHeads}), so that a session's next command does not decode its head from the store again.
 */
final class SequencerProcessor implements Processor<String, SessionCommand, Object, Object> {

    static final String EVENTS_SINK = "events-sink";
    static final String REPLIES_SINK = "replies-sink";
    static final String COMMANDS_SINK = "commands-sink";
    static final String CHECKPOINTS_SINK = "checkpoints-sink";

    private static final Logger LOG = Logger.getLogger(SequencerProcessor.class);

    /** The most heads {@link #recentHeads} keeps per task: those of the sessions written last. */
    static final int RECENT_HEADS = 1_000;

    /** {@link Sequencer#decide}, as the processor calls it; a test hands in one that fails. */
    interface Judge {
        Decision decide(CommandEnvelope envelope, SessionHead head, Sequencer.History history, Instant now);
    }

    private final KafkaTracing tracing;
    private final Judge judge;
    private ProcessorContext<Object, Object> context;
    private KeyValueStore<String, SessionHead> heads;
    private KeyValueStore<String, Long> eventIds;
    private KeyValueStore<String, Long> callIds;
    private KeyValueStore<String, SessionSummary> byTenant;
    private KeyValueStore<String, Long> openByVersion;
    /** Whether this task's open-session counts are by tenant (checked at its first command, {@link #countByTenant}). */
    private boolean countsByTenant;

    /**
     * The heads this task wrote last (sessionId → head), each equal to the stored one: this processor is the only writer
     * of its task's heads, and {@link #init} (a task started, or revived after a failure, its aborted writes gone) empties
     * it.
     */
    private final Map<String, SessionHead> recentHeads = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, SessionHead> eldest) {
            return size() > RECENT_HEADS;
        }
    };

    SequencerProcessor(KafkaTracing tracing) {
        this(tracing, Sequencer::decide);
    }

    SequencerProcessor(KafkaTracing tracing, Judge judge) {
        this.tracing = tracing;
        this.judge = judge;
    }

    @Override
    public void init(ProcessorContext<Object, Object> context) {
        this.context = context;
        heads = context.getStateStore(StoreNames.HEADS);
        eventIds = context.getStateStore(StoreNames.EVENT_IDS);
        callIds = context.getStateStore(StoreNames.CALL_IDS);
        byTenant = context.getStateStore(StoreNames.SESSIONS_BY_TENANT);
        openByVersion = context.getStateStore(StoreNames.OPEN_BY_VERSION);
        recentHeads.clear();
        countsByTenant = false;
    }

    @Override
    public void process(Record<String, SessionCommand> record) {
        SessionCommand command = record.value();
        if (command == null) {
            return;
        }
        Span span = tracing.startSpan("sequencer " + command.getType(), SpanKind.CONSUMER, record.headers());
        try (Scope ignored = span.makeCurrent()) {
            tracing.inject(Context.current(), record.headers());
            String sessionId = command.getSessionId();
            countByTenant();
            SessionHead before = head(sessionId);
            Decision decision = decide(command, before);
            if (decision instanceof Decision.Accepted accepted) {
                Decision.Rejected unstorable = storeHead(command, sessionId, accepted.head());
                if (unstorable == null) {
                    // each event records the trace it was appended in: the one its record's traceparent header carries
                    String traceId = span.getSpanContext().isValid() ? span.getSpanContext().getTraceId() : null;
                    apply(sessionId, before, accepted, record, traceId);
                } else {
                    decision = unstorable;
                }
            }
            if (decision instanceof Decision.Rejected rejected) {
                span.setAttribute("tether.rejection", rejected.reason().wireName());
                if (command.getReplyTo() == null) {
                    // a command of Tether's own (a subagent's result, an approval-service answer): nobody else hears of it
                    LOG.infof("refused command %s of session %s, which no caller waits for: %s (%s)", command.getCommandId(), sessionId,
                            rejected.message(), rejected.reason().wireName());
                }
            }
            if (command.getReplyTo() != null) {
                CommandReply reply = CommandAvro.reply(command, decision, before);
                context.forward(new Record<Object, Object>(command.getReplyTo(), reply, record.timestamp(), record.headers()), REPLIES_SINK);
                if (commitsAtOnce(command)) {
                    context.commit();
                }
            }
        } finally {
            span.end();
        }
    }

    /**
     * Whether the transaction holding a command's verdict is committed as soon as the command is processed (Kafka
     * Streams commits at the end of the loop iteration it was processed in) rather than at the next
     * {@code commit.interval.ms}: every command but an append. Its caller reads the verdict {@code read_committed}, so
     * until the commit it waits, on average half an interval. A claim starts every resume, and claims, migrations and
     * erasures are few, so committing each at once costs the broker little. Appends are the volume: committed at once,
     * each would be a transaction of its own, where a commit interval's worth now share one.
     */
    private static boolean commitsAtOnce(SessionCommand command) {
        return !CommandAvro.APPEND_EVENTS.equals(command.getType());
    }

    private SessionHead head(String sessionId) {
        SessionHead recent = recentHeads.get(sessionId);
        return recent != null ? recent : heads.get(sessionId);
    }

    private Decision decide(SessionCommand command, SessionHead before) {
        CommandEnvelope envelope;
        try {
            envelope = CommandAvro.fromAvro(command);
        } catch (InvalidEventException | IllegalArgumentException e) {
            // the REST edge validates first; this guards against other writers of session-commands
            LOG.warnf("rejected an invalid command %s: %s", command.getCommandId(), e.getMessage());
            return new Decision.Rejected(Rejection.ILLEGAL_EVENT, e.getMessage(),
                    e instanceof InvalidEventException invalid ? invalid.field() : null);
        }
        String sessionId = envelope.sessionId();
        var history = new Sequencer.History() {
            @Override
            public OptionalLong seqOf(String eventId) {
                Long seq = eventIds.get(StoreKey.of(sessionId, eventId));
                return seq == null ? OptionalLong.empty() : OptionalLong.of(seq);
            }

            @Override
            public boolean knownCall(String callId) {
                return callIds.get(StoreKey.of(sessionId, callId)) != null;
            }
        };
        try {
            return judge.decide(envelope, before, history, Instant.ofEpochMilli(context.currentSystemTimeMs()));
        } catch (KafkaException e) {
            throw e; // a store's or the task's: Kafka Streams retries the task, or hands it to another instance
        } catch (RuntimeException e) {
            // A fault of the sequencer's own on this one command. Thrown on, it would fail the task, and the task again at
            // every retry of the same command: every session of the partition would stop behind it. Refused, the
            // partition goes on and the caller hears that nothing was appended.
            LOG.errorf(e, "the sequencer failed on command %s of session %s (%s); refused, nothing appended", command.getCommandId(),
                    sessionId, command.getType());
            return new Decision.Rejected(Rejection.ILLEGAL_EVENT, "the sequencer could not judge this command (a fault of Tether's,"
                    + " logged under commandId '" + command.getCommandId() + "'); nothing was appended", null);
        }
    }

    /**
     * Stores the head an accepted command leaves, before anything else of it is written; a refusal if the store cannot hold
     * it. During a rolling upgrade the store writes an older version of its format ({@code tether.stores.write-version}),
     * which refuses a head it cannot hold (version 2 one with harness-run tools) rather than drop its fields: thrown on, that
     * would fail the task at every retry of the command and stop every session of the partition. Nothing is written then
     * (the value is encoded before the store is touched), so the command is refused whole.
     */
    private Decision.Rejected storeHead(SessionCommand command, String sessionId, SessionHead after) {
        if (after == null) {
            return null; // erased
        }
        try {
            heads.put(sessionId, after);
        } catch (StoreFormatException e) {
            LOG.warnf("refused command %s of session %s: its head cannot be stored in the format this instance writes: %s",
                    command.getCommandId(), sessionId, e.getMessage());
            return new Decision.Rejected(Rejection.ILLEGAL_EVENT, "the session's state cannot be kept in the store format this"
                    + " service writes during a rolling upgrade (" + StoreNames.HEADS + "); nothing was appended: finish the"
                    + " rollout first", null);
        }
        recentHeads.put(sessionId, after);
        return null;
    }

    private void apply(String sessionId, SessionHead before, Decision.Accepted accepted, Record<String, SessionCommand> record,
                       String traceId) {
        Headers headers = record.headers();
        for (Event event : accepted.events()) {
            SessionEvent value = EventAvro.toAvro(event.withTraceId(traceId));
            context.forward(new Record<Object, Object>(new SessionEventKey(sessionId, event.seq()), value, record.timestamp(), headers),
                    EVENTS_SINK);
            eventIds.put(StoreKey.of(sessionId, event.eventId()), event.seq());
            if (event.payload() instanceof AssistantMessage m) {
                m.toolCalls().forEach(c -> callIds.put(StoreKey.of(sessionId, c.callId()), event.seq()));
            }
        }
        SessionHead after = accepted.head();
        if (after != null) {
            // the head itself is stored already (storeHead)
            // most appends change only the summary's lastSeq, which the list reads from the head: one write less per command
            SessionSummary summary = SessionSummary.of(after);
            if (before == null || !summary.listsAs(SessionSummary.of(before))) {
                byTenant.put(StoreKey.of(after.tenantId(), sessionId), summary);
            }
            countOpenSessions(before, after);
        }
        for (Decision.FollowUp followUp : accepted.followUps()) {
            if (followUp instanceof Decision.NotifyParent notify) {
                notifyParent(notify, record);
            } else if (followUp instanceof Decision.EraseLog erase) {
                erase(erase, before, record);
            } else {
                throw new IllegalStateException("unhandled follow-up " + followUp.getClass().getName());
            }
        }
    }

    /** Keeps the per-tenant, per-version count of open sessions operators watch while a version drains. */
    private void countOpenSessions(SessionHead before, SessionHead after) {
        boolean wasOpen = before != null && !before.closed();
        boolean isOpen = after != null && !after.closed();
        if (wasOpen && (!isOpen || !before.harnessVersion().equals(after.harnessVersion()))) {
            add(before.tenantId(), before.harnessVersion(), -1);
        }
        if (isOpen && (!wasOpen || !before.harnessVersion().equals(after.harnessVersion()))) {
            add(after.tenantId(), after.harnessVersion(), +1);
        }
    }

    private void add(String tenantId, String version, long delta) {
        String key = HarnessVersion.key(tenantId, version);
        Long current = openByVersion.get(key);
        long next = (current == null ? 0 : current) + delta;
        if (next <= 0) {
            openByVersion.delete(key);
        } else {
            openByVersion.put(key, next);
        }
    }

    /**
     * Counts kept before they were a tenant's (keyed by the version alone, every tenant's sessions in one) are counted again
     * from this task's heads, by tenant, at the task's first command after an upgrade: the count of a version would
     * otherwise never fall for the sessions counted before, nor tell one tenant's from another's. In a command's processing,
     * as the changelog of the counts needs a record to write under.
     */
    private void countByTenant() {
        if (countsByTenant) {
            return;
        }
        countsByTenant = true;
        var counted = new ArrayList<String>();
        try (var it = openByVersion.all()) {
            it.forEachRemaining(kv -> counted.add(kv.key));
        }
        List<String> legacy = counted.stream().filter(key -> key.indexOf('\0') < 0).toList();
        if (legacy.isEmpty()) {
            return;
        }
        counted.forEach(openByVersion::delete);
        try (var it = heads.all()) {
            it.forEachRemaining(kv -> countOpenSessions(null, kv.value));
        }
        LOG.infof("counted the open sessions of this task's partition again by tenant (the counts of %s were every tenant's)", legacy);
    }

    private void notifyParent(Decision.NotifyParent notify, Record<String, SessionCommand> record) {
        var envelope = new CommandEnvelope(DerivedIds.of(notify.event().eventId(), "command"), notify.parentSessionId(),
                notify.tenantId(), TetherPrincipal.service("session-service", notify.tenantId()),
                Instant.ofEpochMilli(context.currentSystemTimeMs()), new Command.AppendEvents(List.of(notify.event()), null, null));
        context.forward(new Record<Object, Object>(notify.parentSessionId(), CommandAvro.toAvro(envelope, null), record.timestamp(),
                record.headers()), COMMANDS_SINK);
    }

    /**
     * A tombstone for every event of the session, then for its checkpoint; and the session leaves every store. The
     * tombstones are stamped with the session's time at the erasure ({@link Decision.EraseLog#at}: this sequencer's clock,
     * the one every event's {@code occurredAt} comes from, and not before the session's last event): the services that
     * read them tell the erased session's calls from those of a session made again under its id by that time (a call's
     * authorization is at or before it, or after it), so it must not be the clock of the instance that took the request.
     */
    private void erase(Decision.EraseLog erase, SessionHead before, Record<String, SessionCommand> record) {
        String sessionId = erase.sessionId();
        long erasedAt = erase.at().toEpochMilli();
        for (long seq = 1; seq <= erase.lastSeq(); seq++) {
            context.forward(new Record<Object, Object>(new SessionEventKey(sessionId, seq), null, erasedAt, record.headers()),
                    EVENTS_SINK);
        }
        context.forward(new Record<Object, Object>(sessionId, null, erasedAt, record.headers()), CHECKPOINTS_SINK);
        heads.delete(sessionId);
        recentHeads.remove(sessionId);
        byTenant.delete(StoreKey.of(erase.tenantId(), sessionId));
        deletePrefix(eventIds, sessionId);
        deletePrefix(callIds, sessionId);
        countOpenSessions(before, null);
        LOG.infof("erased session %s (%d events)", sessionId, erase.lastSeq());
    }

    private static void deletePrefix(KeyValueStore<String, Long> store, String sessionId) {
        var keys = new ArrayList<String>();
        try (var it = store.prefixScan(StoreKey.prefix(sessionId), new org.apache.kafka.common.serialization.StringSerializer())) {
            it.forEachRemaining(kv -> keys.add(kv.key));
        }
        keys.forEach(store::delete);
    }
}
