package dev.tether.kit.kafka;

import dev.tether.avro.AuthorizationBasisKind;
import dev.tether.core.blob.BlobRef;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.ApprovalDenied;
import dev.tether.core.event.ApprovalGranted;
import dev.tether.core.event.ApprovalRequested;
import dev.tether.core.event.ApprovalScope;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.ContextCompacted;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.OutcomeResolution;
import dev.tether.core.event.PlanItem;
import dev.tether.core.event.PlanItemStatus;
import dev.tether.core.event.PlanUpdated;
import dev.tether.core.event.ProposedEvent;
import dev.tether.core.event.ResumeReason;
import dev.tether.core.event.SessionClaimed;
import dev.tether.core.event.SessionClosed;
import dev.tether.core.event.SessionForked;
import dev.tether.core.event.SessionMigrated;
import dev.tether.core.event.SessionResumed;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.StepCompleted;
import dev.tether.core.event.SubagentResult;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.ToolOutcomeResolved;
import dev.tether.core.event.ToolCallStarted;
import dev.tether.core.event.FrameworkState;
import dev.tether.core.event.HarnessTool;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.TurnInterrupted;
import dev.tether.core.event.UnknownEvent;
import dev.tether.core.event.UserMessage;
import java.util.List;

/**
 * The one place events cross between the domain records ({@code dev.tether.core.event}) and
 * their Avro form ({@code dev.tether.avro}). Every service reads and writes events through it.
 * Stateless.
 */
public final class EventAvro {

    private EventAvro() {}

    public static dev.tether.avro.SessionEvent toAvro(Event e) {
        return dev.tether.avro.SessionEvent.newBuilder()
                .setEventId(e.eventId())
                .setSessionId(e.sessionId())
                .setTenantId(e.tenantId())
                .setSeq(e.seq())
                .setOccurredAt(e.occurredAt())
                .setActor(toAvro(e.actor()))
                .setHarnessVersion(e.harnessVersion())
                .setType(e.type())
                .setPayload(toAvro(e.payload()))
                .setTraceId(e.traceId())
                .build();
    }

    public static Event fromAvro(dev.tether.avro.SessionEvent e) {
        return new Event(e.getEventId(), e.getSessionId(), e.getTenantId(), e.getSeq(), e.getOccurredAt(),
                fromAvro(e.getActor()), e.getHarnessVersion(), fromAvro(e.getType(), e.getPayload()),
                Event.isTraceId(e.getTraceId()) ? e.getTraceId() : null); // only the sequencer writes it; anything else is no trace id
    }

    public static dev.tether.avro.ProposedEvent toAvro(ProposedEvent e) {
        return new dev.tether.avro.ProposedEvent(e.eventId(), e.type(), toAvro(e.actor()), toAvro(e.payload()));
    }

    public static ProposedEvent fromAvro(dev.tether.avro.ProposedEvent e) {
        return new ProposedEvent(e.getEventId(), fromAvro(e.getActor()), fromAvro(e.getType(), e.getPayload()));
    }

    public static dev.tether.avro.Actor toAvro(Actor a) {
        return new dev.tether.avro.Actor(dev.tether.avro.ActorKind.valueOf(a.kind().name()), a.id());
    }

    public static Actor fromAvro(dev.tether.avro.Actor a) {
        return new Actor(ActorKind.valueOf(a.getKind().name()), a.getId());
    }

    /** The Avro payload: the one field named after the event's type is set. */
    public static dev.tether.avro.EventPayload toAvro(EventPayload payload) {
        var p = dev.tether.avro.EventPayload.newBuilder();
        if (payload instanceof SessionStarted s) {
            p.setSessionStarted(new dev.tether.avro.SessionStarted(s.objective(), s.systemPrompt(), s.modelId(),
                    s.harnessVersion(), dev.tether.avro.ToolMode.valueOf(s.toolMode().name()), s.constraints(),
                    s.tokenBudget(), s.parentSessionId(), toAvro(s.harnessTools()), s.parentStartedAt()));
        } else if (payload instanceof UserMessage m) {
            p.setUserMessage(new dev.tether.avro.UserMessage(m.content(), toAvro(m.contentRef())));
        } else if (payload instanceof AssistantMessage m) {
            p.setAssistantMessage(new dev.tether.avro.AssistantMessage(m.content(), toAvro(m.contentRef()),
                    m.toolCalls().stream().map(c -> new dev.tether.avro.ToolCall(c.callId(), c.tool(), c.argumentsJson())).toList(),
                    new dev.tether.avro.TokenUsage(m.usage().inputTokens(), m.usage().outputTokens())));
        } else if (payload instanceof ApprovalRequested r) {
            p.setApprovalRequested(new dev.tether.avro.ApprovalRequested(r.callId(), r.tool(), r.shown(), toAvro(r.shownRef()),
                    r.shownSha256()));
        } else if (payload instanceof ApprovalGranted g) {
            p.setApprovalGranted(decision(g.callId(), g.scope(), g.tool(), g.pathGlob(), g.approver(), g.reason(), null));
        } else if (payload instanceof ApprovalDenied d) {
            p.setApprovalDenied(decision(d.callId(), d.scope(), d.tool(), d.pathGlob(), d.approver(), d.reason(), d.expired()));
        } else if (payload instanceof ToolCallAuthorized a) {
            p.setToolCallAuthorized(new dev.tether.avro.ToolCallAuthorized(a.callId(), toAvro(a.basis())));
        } else if (payload instanceof ToolResult r) {
            p.setToolResult(new dev.tether.avro.ToolResult(r.callId(), r.idempotencyKey(),
                    dev.tether.avro.ToolStatus.valueOf(r.status().name()), r.content(), toAvro(r.artifact())));
        } else if (payload instanceof TurnInterrupted t) {
            p.setTurnInterrupted(new dev.tether.avro.TurnInterrupted(t.partialText(), t.reason()));
        } else if (payload instanceof ContextCompacted c) {
            p.setContextCompacted(new dev.tether.avro.ContextCompacted(c.throughSeq(), c.summary(), toAvro(c.summaryRef()),
                    c.summarySourceSeqs()));
        } else if (payload instanceof PlanUpdated u) {
            p.setPlanUpdated(new dev.tether.avro.PlanUpdated(u.items().stream()
                    .map(i -> new dev.tether.avro.PlanItem(i.text(), dev.tether.avro.PlanItemStatus.valueOf(i.status().name())))
                    .toList()));
        } else if (payload instanceof StepCompleted s) {
            p.setStepCompleted(new dev.tether.avro.StepCompleted(s.step(), s.note(), s.verified(), s.evidence()));
        } else if (payload instanceof SessionClaimed c) {
            p.setSessionClaimed(new dev.tether.avro.SessionClaimed(c.workerId(), c.epoch(), c.harnessVersion()));
        } else if (payload instanceof SessionResumed r) {
            p.setSessionResumed(new dev.tether.avro.SessionResumed(dev.tether.avro.ResumeReason.valueOf(r.reason().name()),
                    r.fromSeq(), r.reconciliation()));
        } else if (payload instanceof SessionMigrated m) {
            p.setSessionMigrated(new dev.tether.avro.SessionMigrated(m.fromVersion(), m.toVersion()));
        } else if (payload instanceof SessionForked f) {
            p.setSessionForked(new dev.tether.avro.SessionForked(f.parentSessionId(), f.atSeq(), f.objective(), f.systemPrompt(),
                    f.modelId(), f.harnessVersion(), dev.tether.avro.ToolMode.valueOf(f.toolMode().name()), f.constraints(),
                    toAvro(f.harnessTools()), f.parentEventId(), f.parentEventAt(), f.tokenBudget()));
        } else if (payload instanceof SubagentResult r) {
            p.setSubagentResult(new dev.tether.avro.SubagentResult(r.childSessionId(), r.outcome(), r.parentStartedAt()));
        } else if (payload instanceof SessionClosed c) {
            p.setSessionClosed(new dev.tether.avro.SessionClosed(c.outcome()));
        } else if (payload instanceof ToolOutcomeResolved r) {
            p.setToolOutcomeResolved(new dev.tether.avro.ToolOutcomeResolved(r.callId(),
                    dev.tether.avro.OutcomeResolution.valueOf(r.resolution().name()), r.approver(), r.reason()));
        } else if (payload instanceof ToolCallStarted t) {
            p.setToolCallStarted(new dev.tether.avro.ToolCallStarted(t.callId(), t.idempotencyKey(), t.epoch(), t.attempt(),
                    t.externalKey()));
        } else if (payload instanceof FrameworkState f) {
            p.setFrameworkState(new dev.tether.avro.FrameworkState(f.framework(), f.kind(), f.key(), f.content(), toAvro(f.artifact())));
        } else if (payload instanceof UnknownEvent u) {
            throw new IllegalArgumentException("an event of unknown type '" + u.type() + "' cannot be written");
        } else {
            throw new IllegalStateException("unhandled event payload " + payload.getClass().getName());
        }
        return p.build();
    }

    /**
     * The domain payload of an Avro payload whose event type is {@code type}. A type this version
     * does not know, or a payload without the field of its type, reads as {@link UnknownEvent}.
     */
    public static EventPayload fromAvro(String type, dev.tether.avro.EventPayload p) {
        EventPayload payload = switch (type) {
            case SessionStarted.TYPE -> p.getSessionStarted() == null ? null : sessionStarted(p.getSessionStarted());
            case UserMessage.TYPE -> p.getUserMessage() == null ? null
                    : new UserMessage(p.getUserMessage().getContent(), fromAvro(p.getUserMessage().getContentRef()));
            case AssistantMessage.TYPE -> p.getAssistantMessage() == null ? null : assistantMessage(p.getAssistantMessage());
            case ApprovalRequested.TYPE -> p.getApprovalRequested() == null ? null : new ApprovalRequested(
                    p.getApprovalRequested().getCallId(), p.getApprovalRequested().getTool(),
                    p.getApprovalRequested().getShown(), fromAvro(p.getApprovalRequested().getShownRef()),
                    p.getApprovalRequested().getShownSha256());
            case ApprovalGranted.TYPE -> p.getApprovalGranted() == null ? null : granted(p.getApprovalGranted());
            case ApprovalDenied.TYPE -> p.getApprovalDenied() == null ? null : denied(p.getApprovalDenied());
            case ToolCallAuthorized.TYPE -> p.getToolCallAuthorized() == null ? null : new ToolCallAuthorized(
                    p.getToolCallAuthorized().getCallId(), fromAvro(p.getToolCallAuthorized().getBasis()));
            case ToolResult.TYPE -> p.getToolResult() == null ? null : new ToolResult(p.getToolResult().getCallId(),
                    p.getToolResult().getIdempotencyKey(), ToolStatus.valueOf(p.getToolResult().getStatus().name()),
                    p.getToolResult().getContent(), fromAvro(p.getToolResult().getArtifact()));
            case TurnInterrupted.TYPE -> p.getTurnInterrupted() == null ? null
                    : new TurnInterrupted(p.getTurnInterrupted().getPartialText(), p.getTurnInterrupted().getReason());
            case ContextCompacted.TYPE -> p.getContextCompacted() == null ? null : new ContextCompacted(
                    p.getContextCompacted().getThroughSeq(), p.getContextCompacted().getSummary(),
                    fromAvro(p.getContextCompacted().getSummaryRef()), p.getContextCompacted().getSummarySourceSeqs());
            case PlanUpdated.TYPE -> p.getPlanUpdated() == null ? null : new PlanUpdated(p.getPlanUpdated().getItems().stream()
                    .map(i -> new PlanItem(i.getText(), PlanItemStatus.valueOf(i.getStatus().name()))).toList());
            case StepCompleted.TYPE -> p.getStepCompleted() == null ? null : new StepCompleted(p.getStepCompleted().getStep(),
                    p.getStepCompleted().getNote(), p.getStepCompleted().getVerified(), p.getStepCompleted().getEvidence());
            case SessionClaimed.TYPE -> p.getSessionClaimed() == null ? null : new SessionClaimed(
                    p.getSessionClaimed().getWorkerId(), p.getSessionClaimed().getEpoch(), p.getSessionClaimed().getHarnessVersion());
            case SessionResumed.TYPE -> p.getSessionResumed() == null ? null : new SessionResumed(
                    ResumeReason.valueOf(p.getSessionResumed().getReason().name()), p.getSessionResumed().getFromSeq(),
                    p.getSessionResumed().getReconciliation());
            case SessionMigrated.TYPE -> p.getSessionMigrated() == null ? null
                    : new SessionMigrated(p.getSessionMigrated().getFromVersion(), p.getSessionMigrated().getToVersion());
            case SessionForked.TYPE -> p.getSessionForked() == null ? null : sessionForked(p.getSessionForked());
            case SubagentResult.TYPE -> p.getSubagentResult() == null ? null
                    : new SubagentResult(p.getSubagentResult().getChildSessionId(), p.getSubagentResult().getOutcome(),
                            p.getSubagentResult().getParentStartedAt());
            case SessionClosed.TYPE -> p.getSessionClosed() == null ? null : new SessionClosed(p.getSessionClosed().getOutcome());
            case ToolOutcomeResolved.TYPE -> p.getToolOutcomeResolved() == null ? null : new ToolOutcomeResolved(
                    p.getToolOutcomeResolved().getCallId(), OutcomeResolution.valueOf(p.getToolOutcomeResolved().getResolution().name()),
                    p.getToolOutcomeResolved().getApprover(), p.getToolOutcomeResolved().getReason());
            case ToolCallStarted.TYPE -> p.getToolCallStarted() == null ? null : new ToolCallStarted(
                    p.getToolCallStarted().getCallId(), p.getToolCallStarted().getIdempotencyKey(), p.getToolCallStarted().getEpoch(),
                    p.getToolCallStarted().getAttempt(), p.getToolCallStarted().getExternalKey());
            case FrameworkState.TYPE -> p.getFrameworkState() == null ? null : new FrameworkState(p.getFrameworkState().getFramework(),
                    p.getFrameworkState().getKind(), p.getFrameworkState().getKey(), p.getFrameworkState().getContent(),
                    fromAvro(p.getFrameworkState().getArtifact()));
            default -> null;
        };
        return payload == null ? new UnknownEvent(type) : payload;
    }

    public static dev.tether.avro.BlobRef toAvro(BlobRef ref) {
        return ref == null ? null : new dev.tether.avro.BlobRef(ref.uri(), ref.sha256(), ref.size(), ref.preview());
    }

    public static BlobRef fromAvro(dev.tether.avro.BlobRef ref) {
        return ref == null ? null : new BlobRef(ref.getUri(), ref.getSha256(), ref.getSize(), ref.getPreview());
    }

    public static dev.tether.avro.AuthorizationBasis toAvro(AuthorizationBasis b) {
        return new dev.tether.avro.AuthorizationBasis(AuthorizationBasisKind.valueOf(b.kind().name()), b.approvalSeq(), b.pathGlob(),
                b.shownSha256());
    }

    public static AuthorizationBasis fromAvro(dev.tether.avro.AuthorizationBasis b) {
        return new AuthorizationBasis(AuthorizationBasis.Kind.valueOf(b.getKind().name()), b.getApprovalSeq(), b.getPathGlob(),
                b.getShownSha256());
    }

    private static SessionStarted sessionStarted(dev.tether.avro.SessionStarted s) {
        return new SessionStarted(s.getObjective(), s.getSystemPrompt(), s.getModelId(), s.getHarnessVersion(),
                ToolMode.valueOf(s.getToolMode().name()), s.getConstraints(), s.getTokenBudget(), s.getParentSessionId(),
                fromAvro(s.getHarnessTools()), s.getParentStartedAt());
    }

    private static SessionForked sessionForked(dev.tether.avro.SessionForked f) {
        return new SessionForked(f.getParentSessionId(), f.getAtSeq(), f.getObjective(), f.getSystemPrompt(), f.getModelId(),
                f.getHarnessVersion(), ToolMode.valueOf(f.getToolMode().name()), f.getConstraints(), fromAvro(f.getHarnessTools()),
                f.getParentEventId(), f.getParentEventAt(), f.getTokenBudget());
    }

    /** A declaration of harness-run tools; none is written as null, as before the field existed, so such events keep their bytes. */
    public static List<dev.tether.avro.HarnessTool> toAvro(List<HarnessTool> tools) {
        return tools.isEmpty() ? null : tools.stream()
                .map(t -> new dev.tether.avro.HarnessTool(t.name(), t.mutating(), t.canReconcile(), t.recordedOnly())).toList();
    }

    /** A declaration of harness-run tools; null (an event written before the field, or with none) is none. */
    public static List<HarnessTool> fromAvro(List<dev.tether.avro.HarnessTool> tools) {
        return tools == null ? List.of() : tools.stream()
                .map(t -> new HarnessTool(t.getName(), t.getMutating(), t.getCanReconcile(), t.getRecordedOnly())).toList();
    }

    private static AssistantMessage assistantMessage(dev.tether.avro.AssistantMessage m) {
        List<ToolCall> calls = m.getToolCalls().stream()
                .map(c -> new ToolCall(c.getCallId(), c.getTool(), c.getArgumentsJson())).toList();
        return new AssistantMessage(m.getContent(), fromAvro(m.getContentRef()), calls,
                new TokenUsage(m.getUsage().getInputTokens(), m.getUsage().getOutputTokens()));
    }

    private static dev.tether.avro.ApprovalDecision decision(String callId, ApprovalScope scope, String tool, String pathGlob,
                                                             String approver, String reason, Boolean expired) {
        return new dev.tether.avro.ApprovalDecision(callId, dev.tether.avro.ApprovalScope.valueOf(scope.name()), tool, pathGlob,
                approver, reason, expired);
    }

    private static ApprovalGranted granted(dev.tether.avro.ApprovalDecision d) {
        return new ApprovalGranted(d.getCallId(), ApprovalScope.valueOf(d.getScope().name()), d.getTool(), d.getPathGlob(),
                d.getApprover(), d.getReason());
    }

    private static ApprovalDenied denied(dev.tether.avro.ApprovalDecision d) {
        return new ApprovalDenied(d.getCallId(), ApprovalScope.valueOf(d.getScope().name()), d.getTool(), d.getPathGlob(),
                d.getApprover(), d.getReason(), d.getExpired());
    }
}
