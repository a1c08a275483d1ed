package dev.tether.executor.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.avro.OutcomeState;
import dev.tether.avro.ToolOutcome;
import dev.tether.avro.ToolRequest;
import dev.tether.core.auth.TetherPrincipal;
import dev.tether.core.blob.BlobOffloader;
import dev.tether.core.blob.BlobRef;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.ProposedEvent;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.executor.domain.Authority;
import dev.tether.kit.kafka.EventAvro;
import dev.tether.kit.kafka.SessionCommands;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import dev.tether.tools.CancellationToken;
import dev.tether.tools.Intent;
import dev.tether.tools.LedgerEntry;
import dev.tether.tools.Reconciliation;
import dev.tether.tools.Tool;
import dev.tether.tools.ToolContext;
import dev.tether.tools.ToolException;
import dev.tether.tools.ToolOutput;
import dev.tether.tools.sandbox.CommandRunner;
import dev.tether.tools.sandbox.OutputRedactor;
import dev.tether.tools.sandbox.SecretProvider;
import dev.tether.tools.sandbox.Workspace;
import dev.tether.tools.sandbox.WorkspaceRoot;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.jboss.logging.Logger;

/**
 * Runs one authorized call exactly once, or proves it cannot: the executor's rules of docs/ARCHITECTURE.md §6 for a single
 * {@link ToolRequest}.
 *
 * <ol>
 *   <li>A call whose ledger entry has ended is reported again (the same {@code tool_result}, the same eventId, so the
 *       sequencer takes it as the duplicate it is), never run again.
 *   <li>A call STARTED without an end (the executor died while it ran) is reconciled: its tool looks at the world. Proven
 *       done, its outcome is recorded; proven not done (or harmless to repeat), it runs if {@link Authority} still
 *       allows it and is recorded as refused (ERROR) if not; otherwise it is recorded and reported {@code UNKNOWN},
 *       and a human decides. It is never retried on a guess. Reconciliation comes before the authority check because
 *       the call may have run under the authority it had then: a policy or registry changed across a restart must
 *       not turn a call that may have taken effect into an ERROR. If its tool is not registered at all any more, it
 *       is {@code UNKNOWN}.
 *   <li>A new call is checked by {@link Authority}; refused, the refusal is recorded and reported as an ERROR result.
 *   <li>Allowed, {@code STARTED} is written and acknowledged by all in-sync replicas before the tool runs; then the
 *       outcome; then the {@code tool_result} command.
 * </ol>
 *
 * Every write is synchronous: a step starts only when the one before it is durable. Thread-safe; the caller runs
 * the calls of one session one at a time.
 */
final class CallHandler {

    private static final Logger LOG = Logger.getLogger(CallHandler.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The principal the executor's results are appended as. */
    static final String PRINCIPAL = "tool-executor";

    private final Ledger ledger;
    private final Producer<String, SpecificRecord> producer;
    private final TopicLayout layout;
    private final Authority authority;
    private final WorkspaceRoot workspaces;
    private final CommandRunner runner;
    private final SecretProvider secrets;
    private final BlobOffloader offloader;
    private final InFlight inFlight;
    private final CrashPoints crashPoints;
    private final String executorId;
    private final Clock clock;

    CallHandler(Ledger ledger, Producer<String, SpecificRecord> producer, TopicLayout layout, Authority authority,
                WorkspaceRoot workspaces, CommandRunner runner, SecretProvider secrets, BlobOffloader offloader,
                InFlight inFlight, CrashPoints crashPoints, String executorId, Clock clock) {
        this.ledger = ledger;
        this.producer = producer;
        this.layout = layout;
        this.authority = authority;
        this.workspaces = workspaces;
        this.runner = runner;
        this.secrets = secrets;
        this.offloader = offloader;
        this.inFlight = inFlight;
        this.crashPoints = crashPoints;
        this.executorId = executorId;
        this.clock = clock;
    }

    /** The eventId of the call's {@code tool_result}: derived from its key, so every report of it is the same event. */
    static String resultEventId(String idempotencyKey) {
        return UUID.nameUUIDFromBytes((idempotencyKey + "/tool_result").getBytes(StandardCharsets.UTF_8)).toString();
    }

    void handle(ToolRequest request) {
        String key = request.getIdempotencyKey();
        ToolOutcome known = ledger.get(key).orElse(null);
        if (known != null && known.getState() != OutcomeState.STARTED) {
            LOG.debugf("%s ended before (%s): reporting it again", key, known.getState());
            report(request, known);
            return;
        }
        var verdict = authority.check(request.getTenantId(), ToolMode.valueOf(request.getToolMode().name()),
                request.getTool(), EventAvro.fromAvro(request.getBasis()));
        Tool tool;
        if (verdict instanceof Authority.Allowed allowed) {
            tool = allowed.tool();
        } else {
            String reason = ((Authority.Refused) verdict).reason();
            LOG.warnf("%s: %s", key, reason);
            if (known == null) {
                finish(request, null, 1, OutcomeState.ERROR, reason, null, null, null);
                return;
            }
            // STARTED under the authority of its time: it may have run, so what happened is found out first; the
            // refusal applies only to running it (again)
            tool = registeredInAnyMode(request.getTool()).orElse(null);
            if (tool == null) {
                finish(request, known, attempt(known), OutcomeState.UNKNOWN, unknownContent(
                        "its tool is not registered here any more, so it cannot be reconciled; " + reason),
                        null, known.getBeforeHash(), known.getAfterHash());
                return;
            }
        }
        JsonNode arguments;
        try {
            arguments = JSON.readTree(request.getArgumentsJson());
        } catch (IOException e) {
            finish(request, known, attempt(known), OutcomeState.ERROR, "invalid arguments: not JSON", null, null, null);
            return;
        }
        Workspace workspace = workspaces.open(request.getSessionId());
        CancellationToken cancellation = new CancellationToken();
        try (var registration = inFlight.register(request.getSessionId(), request.getAuthorizedSeq(), cancellation)) {
            var context = new ToolContext(workspace, runner, newRedactor(), secrets, offloader,
                    request.getTenantId(), key, cancellation);
            if (known != null && !reconciledToRun(request, tool, context, arguments, known)) {
                return;
            }
            if (verdict instanceof Authority.Refused refused) { // reconciled: proven not done, or harmless to repeat
                finish(request, known, attempt(known), OutcomeState.ERROR, refused.reason(), null, null, null);
                return;
            }
            run(request, tool, context, arguments, attempt(known));
        }
    }

    /** The tool of that name in any mode's registry: a STARTED call is reconciled even if its mode lost the tool. */
    private Optional<Tool> registeredInAnyMode(String name) {
        return Arrays.stream(ToolMode.values()).map(mode -> authority.registry().forMode(mode).find(name))
                .flatMap(Optional::stream).findFirst();
    }

    /**
     * A redactor for one call that already knows every secret the provider can list, so that a secret that reached the
     * workspace is redacted from any tool's output, not only from the call that resolved it.
     */
    private OutputRedactor newRedactor() {
        var redactor = new OutputRedactor();
        secrets.listable().forEach(redactor::registerSecret);
        return redactor;
    }

    private static String unknownContent(String why) {
        return "outcome unknown: the executor stopped while this call ran, and it cannot be proven whether it"
                + " took effect (" + why + "). It was not run again; a human decides.";
    }

    /** Reconciles a STARTED call; true if it is proven safe to run it (again). */
    private boolean reconciledToRun(ToolRequest request, Tool tool, ToolContext context, JsonNode arguments,
                                    ToolOutcome started) {
        var entry = new LedgerEntry(started.getIdempotencyKey(), started.getTool(), request.getArgumentsJson(),
                started.getBeforeHash(), started.getAfterHash(), started.getAttempt());
        Reconciliation found = tool.reconcile(context, arguments, entry);
        LOG.infof("%s was STARTED by %s and never ended; reconciled: %s", started.getIdempotencyKey(),
                started.getExecutorId(), found);
        if (found instanceof Reconciliation.Completed done) {
            ToolOutput out = done.output();
            finish(request, started, started.getAttempt() + 1, state(out.status()), out.content(), out.artifact(),
                    out.beforeHash(), out.afterHash());
            return false;
        }
        if (found instanceof Reconciliation.Unknown unknown) {
            finish(request, started, started.getAttempt() + 1, OutcomeState.UNKNOWN, unknownContent(unknown.why()),
                    null, started.getBeforeHash(), started.getAfterHash());
            return false;
        }
        return true; // NotApplied
    }

    private void run(ToolRequest request, Tool tool, ToolContext context, JsonNode arguments, int attempt) {
        String key = request.getIdempotencyKey();
        if (inFlight.interrupted(request.getSessionId(), request.getAuthorizedSeq())) {
            finish(request, ledger.get(key).orElse(null), attempt, OutcomeState.CANCELLED,
                    "cancelled: the turn was interrupted before the call ran", null, null, null);
            return;
        }
        Intent intent;
        try {
            intent = tool.intent(context, arguments);
        } catch (ToolException e) {
            finish(request, ledger.get(key).orElse(null), attempt, OutcomeState.ERROR,
                    context.redactor().redact(e.getMessage()).text(), null, null, null);
            return;
        }
        Instant startedAt = clock.instant();
        write(outcome(request, attempt, OutcomeState.STARTED, startedAt, null)
                .setBeforeHash(intent.beforeHash()).setAfterHash(intent.expectedAfterHash()).build());
        crashPoints.reached(CrashPoints.AFTER_STARTED);
        ToolOutput output;
        try {
            output = tool.execute(context, arguments);
        } catch (ToolException e) {
            output = context.output(ToolOutput.Status.ERROR, e.getMessage());
        } catch (RuntimeException e) {
            LOG.errorf(e, "%s: %s failed unexpectedly", key, tool.name());
            output = context.output(ToolOutput.Status.ERROR, tool.name() + " failed: " + e.getClass().getSimpleName());
        }
        crashPoints.reached(CrashPoints.AFTER_EFFECT);
        ToolOutcome ended = outcome(request, attempt, state(output.status()), startedAt, clock.instant())
                .setContent(output.content())
                .setContentRef(output.artifact() == null ? null : EventAvro.toAvro(output.artifact()))
                .setBeforeHash(output.beforeHash() != null ? output.beforeHash() : intent.beforeHash())
                .setAfterHash(output.afterHash() != null ? output.afterHash() : intent.expectedAfterHash())
                .setReportedEventId(resultEventId(key))
                .build();
        write(ended);
        crashPoints.reached(CrashPoints.AFTER_OUTCOME);
        report(request, ended);
    }

    /** Records an outcome reached without running the tool, and reports it. */
    private void finish(ToolRequest request, ToolOutcome previous, int attempt, OutcomeState state, String content,
                        BlobRef artifact, String beforeHash, String afterHash) {
        Instant now = clock.instant();
        Instant startedAt = previous != null ? previous.getStartedAt() : now;
        ToolOutcome outcome = outcome(request, attempt, state, startedAt, now)
                .setContent(content)
                .setContentRef(artifact == null ? null : EventAvro.toAvro(artifact))
                .setBeforeHash(beforeHash)
                .setAfterHash(afterHash)
                .setReportedEventId(resultEventId(request.getIdempotencyKey()))
                .build();
        write(outcome);
        report(request, outcome);
    }

    private ToolOutcome.Builder outcome(ToolRequest request, int attempt, OutcomeState state, Instant startedAt,
                                        Instant finishedAt) {
        return ToolOutcome.newBuilder()
                .setIdempotencyKey(request.getIdempotencyKey())
                .setSessionId(request.getSessionId())
                .setTenantId(request.getTenantId())
                .setCallId(request.getCallId())
                .setTool(request.getTool())
                .setState(state)
                .setAttempt(attempt)
                .setExecutorId(executorId)
                .setStartedAt(startedAt)
                .setFinishedAt(finishedAt);
    }

    /** Writes a ledger entry, waiting until all in-sync replicas have it. */
    private void write(ToolOutcome outcome) {
        send(new ProducerRecord<>(layout.name(Topics.TOOL_OUTCOMES), outcome.getIdempotencyKey(), outcome));
        ledger.put(outcome);
    }

    /** Sends the call's {@code tool_result} to the sequencer: the same command however often it is sent. */
    private void report(ToolRequest request, ToolOutcome outcome) {
        String key = request.getIdempotencyKey();
        var result = new ToolResult(request.getCallId(), key, status(outcome.getState()),
                outcome.getContent() == null ? "" : outcome.getContent(),
                outcome.getContentRef() == null ? null : EventAvro.fromAvro(outcome.getContentRef()));
        var principal = TetherPrincipal.service(PRINCIPAL, request.getTenantId());
        String eventId = resultEventId(key);
        var command = SessionCommands.append(eventId, request.getSessionId(), request.getTenantId(), principal,
                List.of(new ProposedEvent(eventId, new Actor(ActorKind.TOOL, PRINCIPAL), result)), clock.instant());
        send(new ProducerRecord<>(layout.name(Topics.SESSION_COMMANDS), request.getSessionId(), command));
        LOG.infof("%s: %s %s reported (attempt %d)", key, request.getTool(), outcome.getState(), outcome.getAttempt());
    }

    private void send(ProducerRecord<String, SpecificRecord> record) {
        try {
            producer.send(record).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while writing to " + record.topic(), e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("could not write to " + record.topic() + ": " + e.getCause().getMessage(),
                    e.getCause());
        }
    }

    private static int attempt(ToolOutcome previous) {
        return previous == null ? 1 : previous.getAttempt() + 1;
    }

    private static OutcomeState state(ToolOutput.Status status) {
        return switch (status) {
            case OK -> OutcomeState.OK;
            case ERROR -> OutcomeState.ERROR;
            case CANCELLED -> OutcomeState.CANCELLED;
        };
    }

    private static ToolStatus status(OutcomeState state) {
        return switch (state) {
            case OK -> ToolStatus.OK;
            case ERROR -> ToolStatus.ERROR;
            case CANCELLED -> ToolStatus.CANCELLED;
            case STARTED, UNKNOWN -> ToolStatus.UNKNOWN;
        };
    }
}
