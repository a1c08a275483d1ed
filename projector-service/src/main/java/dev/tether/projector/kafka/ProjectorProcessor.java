package dev.tether.projector.kafka;

import dev.tether.avro.Checkpoint;
import dev.tether.avro.LogPosition;
import dev.tether.avro.SessionEvent;
import dev.tether.avro.ToolOutcome;
import dev.tether.avro.ToolRequest;
import dev.tether.core.blob.BlobRef;
import dev.tether.core.event.ApprovalDenied;
import dev.tether.core.event.ApprovalGranted;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.BlobRefs;
import dev.tether.core.event.Event;
import dev.tether.core.event.OutcomeResolution;
import dev.tether.core.event.HarnessTool;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolOutcomeResolved;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.id.IdempotencyKey;
import dev.tether.core.id.StoreKey;
import dev.tether.kit.kafka.EventAvro;
import dev.tether.kit.kafka.FlushForwarding;
import dev.tether.kit.kafka.SessionEventKey;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.kafka.TenantIndex;
import dev.tether.kit.kafka.WriteBackStore;
import dev.tether.kit.tracing.KafkaTracing;
import dev.tether.projector.avro.CheckpointAvro;
import dev.tether.projector.domain.CallRecord;
import dev.tether.projector.domain.Projection;
import dev.tether.projector.domain.SessionProjection;
import dev.tether.projector.migration.CheckpointMigrations;
import dev.tether.projector.migration.UnmigratableCheckpointException;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;
import org.jboss.logging.Logger;

/**
 * Folds each event of {@code session-events} into its session's checkpoint, keeps a record per tool call, and emits a
 * {@code ToolRequest} for every {@code tool_call_authorized} of a call the executor runs. Also reads the executor's ledger
 * ({@code tool-outcomes}, partitioned by session like the events) to record each call's attempts in its call record only
 * (the checkpoint is a fold of the events alone). Exactly-once; an event it has folded already (a replay) changes nothing.
 * After each event it signals {@link StoreSignals} with the session's id on {@value ProjectorStores#CHECKPOINTS}: a
 * read waiting for the checkpoint to reach a seq looks again then.
 *
 * <p>The checkpoint store writes back ({@link WriteBackStore}): a session's checkpoint is written to the store (and seen
 * by reads) at every event, but is converted to Avro only when read or flushed, and encoded and reaches the store's
 * changelog and {@code session-checkpoints} once per commit, the latest one, in the commit's transaction
 * ({@link FlushForwarding}). Between events the processor keeps the checkpoints of the sessions it folded last as it
 * folded them ({@link #folded}), so that the next event of a session is folded without reading, decoding and converting
 * the stored one back: the same value, since the processor is the store's only writer and a checkpoint reads back from
 * its Avro as it was written.
 *
 * <p>A fold continues the trace of its event's record in a span of its own, which the tool requests it emits carry on
 * (their records get its context). A fold that requests no call, of a trace that is not sampled, starts none
 * ({@link KafkaTracing#unsampled}): its span would record nothing, and the checkpoint it writes carries the event's
 * record's trace context instead, the same trace. Extracting, starting, entering and injecting that span took about a
 * tenth of the stream thread's time per event (bench/README.md, "Where the time goes").
 */
final class ProjectorProcessor implements Processor<Object, Object, Object, Object> {

    static final String CHECKPOINTS_SINK = "checkpoints-sink";
    static final String REQUESTS_SINK = "requests-sink";

    private static final Logger LOG = Logger.getLogger(ProjectorProcessor.class);

    /** The most checkpoints {@link #folded} keeps per task: those of the sessions folded last. */
    static final int FOLDED_SESSIONS = 1_000;

    private final KafkaTracing tracing;
    private final StoreSignals signals;
    /**
     * The checkpoints of the sessions folded last, as folded (sessionId → checkpoint): each equal to the stored one, since
     * only this processor writes the store. Emptied when the task (re)starts, so it never outlives the store's state.
     */
    private final Map<String, SessionProjection> folded = lastUsed(FOLDED_SESSIONS);
    /**
     * When the sessions that asked for calls last started (sessionId → their seq 1's occurredAt), which each of their
     * requests carries: read from the message store once per session, not decoded again for every authorization.
     * Emptied with {@link #folded}, and a session's at its erasure (a session made again under the id starts anew).
     */
    private final Map<String, Instant> startedAt = lastUsed(FOLDED_SESSIONS);
    private ProcessorContext<Object, Object> context;
    private WriteBackStore<String, Checkpoint> checkpoints;
    private KeyValueStore<String, CallRecord> calls;
    private TenantIndex byTenant;
    private SessionBlobs blobs;
    private SessionLog log;

    ProjectorProcessor(KafkaTracing tracing, StoreSignals signals) {
        this.tracing = tracing;
        this.signals = signals;
    }

    @Override
    public void init(ProcessorContext<Object, Object> context) {
        this.context = context;
        folded.clear(); // a task revived after a failure starts from its stores
        startedAt.clear();
        KeyValueStore<String, Checkpoint> stored = context.getStateStore(ProjectorStores.CHECKPOINTS);
        FlushForwarding.install(context, stored, CHECKPOINTS_SINK);
        checkpoints = WriteBackStore.of(stored);
        calls = context.getStateStore(ProjectorStores.CALLS);
        byTenant = TenantIndex.open(context, ProjectorStores.BY_TENANT, stored, Checkpoint::getTenantId);
        log = new SessionLog(context.getStateStore(ProjectorStores.MESSAGES));
        blobs = SessionBlobs.open(context, log);
    }

    @Override
    public void process(Record<Object, Object> record) {
        if (record.key() instanceof SessionEventKey key) {
            if (record.value() == null) {
                erase(key.sessionId(), record);
            } else {
                project(key, (SessionEvent) record.value(), record);
            }
            signals.changed(ProjectorStores.CHECKPOINTS, key.sessionId());
        } else if (record.value() instanceof ToolOutcome outcome) {
            outcome(outcome, record.timestamp());
        }
    }

    private void project(SessionEventKey key, SessionEvent value, Record<Object, Object> record) {
        Event event = EventAvro.fromAvro(value);
        boolean requestsACall = event.payload() instanceof ToolCallAuthorized || event.payload() instanceof ToolOutcomeResolved;
        if (!requestsACall && tracing.unsampled(record.headers())) {
            fold(key.sessionId(), event, record, null); // no span: see the class comment; and no call, so no trace id to record
            return;
        }
        Span span = tracing.startSpan("projector fold " + value.getType(), SpanKind.CONSUMER, record.headers());
        try (Scope ignored = span.makeCurrent()) {
            tracing.inject(Context.current(), record.headers());
            fold(key.sessionId(), event, record, span.getSpanContext().getTraceId());
        } finally {
            span.end();
        }
    }

    private void fold(String sessionId, Event event, Record<Object, Object> record, String traceId) {
        Before loaded = current(sessionId, event.seq());
        SessionProjection before = loaded.state();
        if (event.seq() <= loaded.foldedThrough()) {
            // folded already: a replay after a crash, or a restart of the projection; also when the stored checkpoint
            // is of a version this projector rebuilds rather than reads (its lastSeq still says how far it folded), so
            // that a replayed event emits nothing again
            return;
        }
        loaded.report();
        RecordMetadata at = context.recordMetadata().orElseThrow();
        SessionProjection after = Projection.evolve(before, event, at.partition(), at.offset());
        if (before == null) {
            byTenant.add(after.tenantId(), sessionId);
        }
        // converted to Avro when read or flushed, and encoded then: to session-checkpoints when the store flushes it
        checkpoints.putLazily(sessionId, () -> CheckpointAvro.toAvro(after));
        folded.put(sessionId, after);
        for (BlobRef ref : BlobRefs.of(event.payload())) {
            blobs.referred(after.tenantId(), sessionId, ref.sha256(), record.timestamp());
        }
        recordCalls(after, event, record, traceId);
    }

    /**
     * The checkpoint before the event with {@code seq}: the stored one, migrated to the current
     * version if older; or, if there is none yet for a session that has events (its checkpoint was
     * lost), or the stored one cannot be migrated, the fold of its events so far, from the log.
     */
    private Before current(String sessionId, long seq) {
        SessionProjection kept = folded.get(sessionId);
        if (kept != null) {
            return new Before(kept, null, null, kept.lastSeq());
        }
        Checkpoint stored = checkpoints.get(sessionId);
        if (stored != null) {
            try {
                CheckpointAvro.Loaded loaded = CheckpointAvro.load(stored);
                return new Before(loaded.projection(), loaded.upgrade(), null, stored.getLastSeq());
            } catch (UnmigratableCheckpointException e) {
                if (seq <= stored.getLastSeq()) {
                    return new Before(null, null, e, stored.getLastSeq()); // folded already: nothing to rebuild for it
                }
                SessionProjection rebuilt = seq == 1 ? null : log.fold(sessionId, seq - 1);
                if (rebuilt != null) {
                    LogPosition at = stored.getLogPosition();
                    rebuilt = Projection.placed(rebuilt, new SessionProjection.Position(at.getPartition(), at.getFirstOffset(), at.getLastOffset()));
                }
                return new Before(rebuilt, null, e, stored.getLastSeq());
            }
        }
        SessionProjection rebuilt = seq == 1 ? null : log.fold(sessionId, seq - 1);
        return new Before(rebuilt, null, null, rebuilt == null ? 0 : rebuilt.lastSeq());
    }

    /**
     * The checkpoint an event is folded into, and how it was read: migrated, or rebuilt because it could not be;
     * {@code foldedThrough} is the last seq the stored checkpoint (or the rebuild) had folded.
     */
    private record Before(SessionProjection state, CheckpointMigrations.Upgraded upgrade, UnmigratableCheckpointException unmigratable,
                          long foldedThrough) {

        /** Logs a migration or a rebuild, once: when the first new event of the session is folded into it. */
        void report() {
            if (upgrade != null && upgrade.migrated()) {
                LOG.infof("migrated the checkpoint of %s from schemaVersion %d to %d: %s", state.sessionId(), upgrade.storedVersion(),
                        state.schemaVersion(), String.join("; ", upgrade.applied()));
            } else if (unmigratable != null && unmigratable.reason() == UnmigratableCheckpointException.Reason.NEWER_THAN_THIS_PROJECTOR) {
                LOG.warnf("%s Rebuilt it from the log.", unmigratable.getMessage());
            } else if (unmigratable != null) {
                LOG.infof("%s Rebuilt it from the log.", unmigratable.getMessage());
            }
        }
    }

    private void recordCalls(SessionProjection after, Event event, Record<Object, Object> record, String traceId) {
        String sessionId = event.sessionId();
        if (event.payload() instanceof AssistantMessage m) {
            m.toolCalls().forEach(c -> calls.put(StoreKey.of(sessionId, c.callId()),
                    CallRecord.requested(sessionId, c.callId(), c.tool(), c.argumentsJson(), event.seq())));
        } else if (event.payload() instanceof ToolCallAuthorized a) {
            CallRecord call = calls.get(StoreKey.of(sessionId, a.callId()));
            if (call == null) {
                LOG.warnf("tool_call_authorized for unknown call %s of %s", a.callId(), sessionId);
                return;
            }
            call = call.authorized(event.seq(), basis(a.basis()), traceId);
            calls.put(StoreKey.of(sessionId, a.callId()), call);
            if (runByTheHarness(after, call)) {
                return; // the harness runs it (docs/ARCHITECTURE.md §6, "Harness-run tools"): the executor must never see it
            }
            ToolRequest request = request(after, call, a.basis(), event, startedAt(sessionId));
            context.forward(new Record<Object, Object>(call.idempotencyKey(), request, record.timestamp(), record.headers()), REQUESTS_SINK);
        } else if (event.payload() instanceof ToolOutcomeResolved r) {
            resolved(after, event, r, record, traceId);
        } else if (event.payload() instanceof ApprovalGranted g) {
            update(sessionId, g.callId(), c -> c.decided(new CallRecord.Approval(event.seq(), CallRecord.Approval.Decision.GRANTED,
                    g.scope(), g.approver(), g.reason(), event.occurredAt())));
        } else if (event.payload() instanceof ApprovalDenied d) {
            update(sessionId, d.callId(), c -> c.decided(new CallRecord.Approval(event.seq(), CallRecord.Approval.Decision.DENIED,
                    d.scope(), d.approver(), d.reason(), event.occurredAt())));
        } else if (event.payload() instanceof ToolResult r) {
            update(sessionId, r.callId(), c -> c.finished(event.seq(), r.status()));
        }
    }

    /**
     * A human's decision on an unknown outcome. A retry is a new request of the call under a new idempotency key (the
     * deciding event's), so the executor's ledger, which holds the old key as unknown, runs it afresh; its basis is
     * the deciding event.
     */
    private void resolved(SessionProjection after, Event event, ToolOutcomeResolved r, Record<Object, Object> record, String traceId) {
        String sessionId = event.sessionId();
        CallRecord call = calls.get(StoreKey.of(sessionId, r.callId()));
        if (call == null) {
            LOG.warnf("tool_outcome_resolved for unknown call %s of %s", r.callId(), sessionId);
            return;
        }
        if (r.resolution() != OutcomeResolution.RETRY) {
            calls.put(StoreKey.of(sessionId, r.callId()), call.finished(event.seq(),
                    r.resolution() == OutcomeResolution.MARK_DONE ? ToolStatus.OK : ToolStatus.CANCELLED));
            return;
        }
        AuthorizationBasis basis = AuthorizationBasis.approval(event.seq());
        call = call.retried(event.seq(), IdempotencyKey.of(sessionId, event.seq(), r.callId()),
                "retry approved by " + r.approver() + " at seq " + event.seq(), traceId);
        calls.put(StoreKey.of(sessionId, r.callId()), call);
        if (runByTheHarness(after, call)) {
            return; // the harness starts the retried call itself, under the new key
        }
        ToolRequest request = request(after, call, basis, event, startedAt(sessionId));
        context.forward(new Record<Object, Object>(call.idempotencyKey(), request, record.timestamp(), record.headers()), REQUESTS_SINK);
    }

    /** Whether the session's harness runs {@code call}, as its first event declared: then no tool request is emitted. */
    private static boolean runByTheHarness(SessionProjection session, CallRecord call) {
        return HarnessTool.runnerOf(session.harnessTools(), call.tool()).harness();
    }

    /**
     * The request of an authorized {@code call} to the executor; {@code sessionStartedAt} (the session's first event's
     * {@code occurredAt}) makes the key the executor hands the tool for external systems one no later session under
     * the id repeats ({@code IdempotencyKey.external}).
     */
    private static ToolRequest request(SessionProjection session, CallRecord call, AuthorizationBasis basis, Event event,
                                       Instant sessionStartedAt) {
        return ToolRequest.newBuilder()
                .setIdempotencyKey(call.idempotencyKey())
                .setSessionId(session.sessionId())
                .setTenantId(session.tenantId())
                .setCallId(call.callId())
                .setTool(call.tool())
                .setArgumentsJson(call.argumentsJson())
                .setRequestSeq(call.requestSeq())
                .setAuthorizedSeq(event.seq())
                .setBasis(EventAvro.toAvro(basis))
                .setToolMode(dev.tether.avro.ToolMode.valueOf(session.toolMode().name()))
                .setHarnessVersion(session.harnessVersion())
                .setRunBy(dev.tether.avro.CallRunner.EXECUTOR) // only executor calls are requested (see runByTheHarness)
                .setRequestedAt(event.occurredAt())
                .setSessionStartedAt(sessionStartedAt)
                .build();
    }

    private static String basis(AuthorizationBasis basis) {
        return basis.kind() == AuthorizationBasis.Kind.APPROVAL ? "approval at seq " + basis.approvalSeq() : basis.kind().name();
    }

    private void update(String sessionId, String callId, java.util.function.UnaryOperator<CallRecord> change) {
        CallRecord call = calls.get(StoreKey.of(sessionId, callId));
        if (call != null) {
            calls.put(StoreKey.of(sessionId, callId), change.apply(call));
        }
    }

    /**
     * A transition in the executor's ledger: an attempt started or ended. It goes into the call's
     * record only; the checkpoint stays a fold of the events alone, so time travel and a rebuild
     * give exactly the live one.
     */
    private void outcome(ToolOutcome outcome, long timestamp) {
        if (outcome.getErasedAt() != null) {
            return; // a record rewritten without its output when its session was erased: no attempt
        }
        String sessionId = outcome.getSessionId();
        CallRecord call = calls.get(StoreKey.of(sessionId, outcome.getCallId()));
        if (call == null || !ofThisSession(outcome)) {
            return;
        }
        calls.put(StoreKey.of(sessionId, outcome.getCallId()), call.attempt(new CallRecord.Attempt(outcome.getAttempt(),
                outcome.getState().name(), outcome.getExecutorId(), outcome.getStartedAt(), outcome.getFinishedAt())));
        if (outcome.getContentRef() != null) {
            // offloaded output its tool_result may never carry (its session erased before it was reported)
            blobs.referred(outcome.getTenantId(), sessionId, outcome.getContentRef().getSha256(), timestamp);
        }
    }

    /**
     * Whether a ledger record is of a call of the session now under its id, not of an erased one's: a call's key repeats in
     * a session made again under the id (the same seq asking for the same callId), its external key does not (it names the
     * session's start). A record without one (an executor before external keys) or of a session whose start is not held
     * here is taken as the session's, as before.
     */
    private boolean ofThisSession(ToolOutcome outcome) {
        Instant start = outcome.getExternalKey() == null ? null : startedAt(outcome.getSessionId());
        return start == null || outcome.getExternalKey().equals(IdempotencyKey.external(outcome.getIdempotencyKey(), start));
    }

    /**
     * The session was erased (a tombstone per event, from seq 1): its checkpoint and call records go too, at the first
     * tombstone. The checkpoint's tombstone reaches {@code session-checkpoints} when the cache flushes the delete (none if
     * no checkpoint of it was ever sent). Each call requested from the executor gets an erasure on {@code tool-requests}
     * ({@link #erasure}), after its request, so that its ledger record loses the call's output: also one that has not run
     * yet, or whose record this projector has not read yet.
     */
    private void erase(String sessionId, Record<Object, Object> tombstone) {
        folded.remove(sessionId);
        startedAt.remove(sessionId);
        Checkpoint erased = checkpoints.get(sessionId);
        if (erased == null) {
            return;
        }
        checkpoints.delete(sessionId);
        byTenant.remove(erased.getTenantId(), sessionId);
        blobs.erased(sessionId, tombstone.timestamp());
        var records = new ArrayList<CallRecord>();
        try (var it = calls.prefixScan(StoreKey.prefix(sessionId), new StringSerializer())) {
            it.forEachRemaining(kv -> records.add(kv.value));
        }
        var harnessTools = CheckpointAvro.harnessTools(erased);
        for (CallRecord call : records) {
            calls.delete(StoreKey.of(sessionId, call.callId()));
            if (call.authorizedSeq() == null || HarnessTool.runnerOf(harnessTools, call.tool()).harness()) {
                continue; // never requested: nothing in the ledger
            }
            // the message store still holds every event after the first (this tombstone is seq 1's)
            Event authorization = log.event(sessionId, call.authorizedSeq());
            if (authorization == null) {
                LOG.warnf("%s of erased session %s: its authorization (seq %d) is not in the message store, so its ledger record"
                        + " keeps the call's output until a later record of the key", call.idempotencyKey(), sessionId, call.authorizedSeq());
                continue;
            }
            Instant erasedAt = Instant.ofEpochMilli(tombstone.timestamp());
            var attempts = earlierAttempts(sessionId, call);
            attempts.put(call.idempotencyKey(), authorization);
            attempts.forEach((key, authorized) -> context.forward(new Record<Object, Object>(key,
                    erasure(erased, call, key, authorized, erasedAt), tombstone.timestamp(), tombstone.headers()), REQUESTS_SINK));
        }
    }

    /**
     * The earlier attempts of a call retried after an unknown outcome, each under its own key (its authorization's:
     * {@code tool_call_authorized} for the first, each RETRY for the later ones), in log order: the executor keeps a ledger
     * record per key, and the call record keeps only the latest. Read from the message store between the call's request
     * and its latest authorization, once per erasure; empty for a call never retried.
     */
    private Map<String, Event> earlierAttempts(String sessionId, CallRecord call) {
        var attempts = new LinkedHashMap<String, Event>();
        if (call.idempotencyKey().equals(IdempotencyKey.of(sessionId, call.requestSeq(), call.callId()))) {
            return attempts;
        }
        for (Event e : log.events(sessionId, call.requestSeq() + 1, call.authorizedSeq() - 1)) {
            if (e.payload() instanceof ToolCallAuthorized a && a.callId().equals(call.callId())) {
                attempts.put(IdempotencyKey.of(sessionId, call.requestSeq(), call.callId()), e);
            } else if (e.payload() instanceof ToolOutcomeResolved r && r.callId().equals(call.callId())
                    && r.resolution() == OutcomeResolution.RETRY) {
                attempts.put(IdempotencyKey.of(sessionId, e.seq(), call.callId()), e);
            }
        }
        return attempts;
    }

    /**
     * The erasure of an erased session's call (of one attempt of it, under that attempt's key): its request as authorized (the same key and {@code requestedAt}, by which
     * the executor tells the erased call's records from a later session's under the id), without its arguments, with
     * {@code erasedAt}, and RECORDED, so that an executor of a release before erasures (but with {@code runBy}) takes it for
     * a harness-run call and answers nothing (docs/ARCHITECTURE.md §6, "Erasure").
     */
    private static ToolRequest erasure(Checkpoint session, CallRecord call, String key, Event authorization, Instant erasedAt) {
        AuthorizationBasis basis = authorization.payload() instanceof ToolCallAuthorized a ? a.basis()
                : AuthorizationBasis.approval(authorization.seq()); // a retry, authorized by its deciding event
        return ToolRequest.newBuilder()
                .setIdempotencyKey(key)
                .setSessionId(session.getSessionId())
                .setTenantId(session.getTenantId())
                .setCallId(call.callId())
                .setTool(call.tool())
                .setArgumentsJson("{}")
                .setRequestSeq(call.requestSeq())
                .setAuthorizedSeq(authorization.seq())
                .setBasis(EventAvro.toAvro(basis))
                .setToolMode(session.getToolMode())
                .setHarnessVersion(session.getHarnessVersion())
                .setRunBy(dev.tether.avro.CallRunner.RECORDED)
                .setRequestedAt(authorization.occurredAt())
                .setErasedAt(erasedAt)
                .build();
    }

    @Override
    public void close() {
        folded.clear();
        startedAt.clear();
    }

    /** A map that keeps the {@code max} keys used last. */
    private static <V> Map<String, V> lastUsed(int max) {
        return new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > max;
            }
        };
    }

    /** {@link #startedAt} of {@code sessionId}; null when the message store does not hold its seq 1. */
    private Instant startedAt(String sessionId) {
        return startedAt.computeIfAbsent(sessionId, log::startedAt);
    }
}
