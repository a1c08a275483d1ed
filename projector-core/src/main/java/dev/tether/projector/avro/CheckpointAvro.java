package dev.tether.projector.avro;

import dev.tether.avro.ApprovalInForce;
import dev.tether.avro.ArtifactHandle;
import dev.tether.avro.CallCounts;
import dev.tether.avro.Checkpoint;
import dev.tether.avro.CompactionState;
import dev.tether.avro.DecisionRecord;
import dev.tether.avro.LogPosition;
import dev.tether.avro.PendingAction;
import dev.tether.avro.Progress;
import dev.tether.avro.SessionStatus;
import dev.tether.avro.ToolCallCursor;
import dev.tether.avro.ToolCallState;
import dev.tether.avro.WorkerLease;
import dev.tether.core.event.PlanItem;
import dev.tether.core.event.PlanItemStatus;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolMode;
import dev.tether.projector.domain.SessionProjection.CallState;
import dev.tether.projector.domain.SessionProjection;
import dev.tether.projector.migration.CheckpointMigrations;
import dev.tether.projector.migration.UnmigratableCheckpointException;
import java.util.List;

/**
 * The projector's edge between its checkpoint ({@link SessionProjection}) and the Avro
 * {@link Checkpoint} on {@code session-checkpoints} and in its store. Stateless.
 *
 * <p>A checkpoint carries the semantic version of its content ({@code schemaVersion}). A stored one is read with
 * {@link #load}: an older version goes through the migration chain ({@link CheckpointMigrations#projector()}); one the
 * chain cannot migrate, or one from a newer projector, throws {@link UnmigratableCheckpointException} and the caller
 * rebuilds it from the log.
 */
public final class CheckpointAvro {

    private static final CheckpointMigrations MIGRATIONS = CheckpointMigrations.projector();

    /**
     * A stored checkpoint as this projector's state.
     *
     * @param projection the checkpoint under the current version
     * @param upgrade    how it got there: the stored version and the migration steps applied (none when it was current)
     */
    public record Loaded(SessionProjection projection, CheckpointMigrations.Upgraded upgrade) {}

    private CheckpointAvro() {}

    /**
     * A stored checkpoint (from the store or {@code session-checkpoints}), migrated to the current version if older.
     *
     * @throws UnmigratableCheckpointException if it cannot be migrated, or was written by a newer projector: rebuild it
     *                                         from the log
     */
    public static Loaded load(Checkpoint stored) {
        CheckpointMigrations.Upgraded upgrade = MIGRATIONS.upgrade(stored);
        return new Loaded(fromAvro(upgrade.checkpoint()), upgrade);
    }

    public static Checkpoint toAvro(SessionProjection p) {
        return Checkpoint.newBuilder()
                .setSessionId(p.sessionId())
                .setTenantId(p.tenantId())
                .setSchemaVersion(p.schemaVersion())
                .setLastSeq(p.lastSeq())
                .setOwner(p.owner())
                .setObjective(p.objective())
                .setModelId(p.modelId())
                .setHarnessVersion(p.harnessVersion())
                .setToolMode(dev.tether.avro.ToolMode.valueOf(p.toolMode().name()))
                .setStatus(SessionStatus.valueOf(p.status().name()))
                .setStep(p.step())
                .setUsedTokens(new dev.tether.avro.TokenUsage(p.usedTokens().inputTokens(), p.usedTokens().outputTokens()))
                .setTokenBudget(p.tokenBudget())
                .setPendingAction(p.pendingAction() == null ? null
                        : new PendingAction(p.pendingAction().kind().wireName(), p.pendingAction().callId(), p.pendingAction().sinceSeq()))
                .setToolCursor(p.toolCursor().stream().map(c -> ToolCallCursor.newBuilder()
                        .setCallId(c.callId()).setTool(c.tool()).setRequestSeq(c.requestSeq()).setIdempotencyKey(c.idempotencyKey())
                        .setState(ToolCallState.valueOf(c.state().name())).setResultSeq(c.resultSeq())
                        .setAwaitingApproval(c.awaitingApproval()).setRunBy(dev.tether.avro.CallRunner.valueOf(c.runBy().name()))
                        .setAttempt(c.attempt()).setStartedEpoch(c.startedEpoch()).build()).toList())
                .setPlan(p.plan().stream().map(i -> new dev.tether.avro.PlanItem(i.text(),
                        dev.tether.avro.PlanItemStatus.valueOf(i.status().name()))).toList())
                .setProgress(new Progress(p.progress().lastVerifiedStep(), p.progress().stepsCompleted(), p.progress().lastNote()))
                .setApprovals(p.approvals().stream().map(g -> new ApprovalInForce(g.grantSeq(), g.tool(), g.pathGlob(), g.approver()))
                        .toList())
                .setCompaction(p.compaction() == null ? null
                        : new CompactionState(p.compaction().throughSeq(), p.compaction().compactedAtSeq(), p.compaction().facts()))
                .setLogPosition(new LogPosition(p.position().partition(), p.position().firstOffset(), p.position().lastOffset()))
                .setLease(p.lease() == null ? null
                        : new WorkerLease(p.lease().workerId(), p.lease().epoch(), p.lease().harnessVersion(), p.lease().claimedAt()))
                .setUpdatedAt(p.updatedAt())
                .setConstraints(p.constraints())
                .setDecisions(p.decisions().stream().map(d -> new DecisionRecord(d.seq(), d.kind(), d.callId(), d.summary())).toList())
                .setArtifacts(p.artifacts().stream().map(a -> new ArtifactHandle(a.seq(), a.uri(), a.sha256(), a.size(), a.label()))
                        .toList())
                .setCallCounts(new CallCounts(p.callCounts().ok(), p.callCounts().error(), p.callCounts().cancelled(),
                        p.callCounts().unknown()))
                .setHarnessTools(p.harnessTools().stream().map(t -> new dev.tether.avro.HarnessTool(t.name(), t.mutating(),
                        t.canReconcile(), t.recordedOnly())).toList())
                .build();
    }

    /** A checkpoint of the current version; a stored one goes through {@link #load}. */
    public static SessionProjection fromAvro(Checkpoint c) {
        if (c.getSchemaVersion() != SessionProjection.SCHEMA_VERSION) {
            throw new IllegalArgumentException("the checkpoint of " + c.getSessionId() + " has schemaVersion " + c.getSchemaVersion()
                    + ", not " + SessionProjection.SCHEMA_VERSION + "; load it through the migration chain");
        }
        var cursor = c.getToolCursor().stream().map(t -> new SessionProjection.CallCursor(t.getCallId(), t.getTool(),
                t.getRequestSeq(), t.getIdempotencyKey(), CallState.valueOf(t.getState().name()), t.getResultSeq(),
                t.getAwaitingApproval(), dev.tether.core.event.CallRunner.valueOf(t.getRunBy().name()), t.getAttempt(),
                t.getStartedEpoch())).toList();
        return new SessionProjection(c.getSessionId(), c.getTenantId(), c.getSchemaVersion(), c.getLastSeq(), c.getOwner(),
                c.getObjective(), c.getConstraints(), c.getModelId(), c.getHarnessVersion(), ToolMode.valueOf(c.getToolMode().name()),
                SessionProjection.Status.valueOf(c.getStatus().name()), c.getStep(),
                new TokenUsage(c.getUsedTokens().getInputTokens(), c.getUsedTokens().getOutputTokens()), c.getTokenBudget(),
                c.getPendingAction() == null ? null : new SessionProjection.PendingAction(
                        SessionProjection.PendingAction.Kind.byWireName(c.getPendingAction().getKind()), c.getPendingAction().getCallId(),
                        c.getPendingAction().getSinceSeq()),
                cursor,
                c.getPlan().stream().map(i -> new PlanItem(i.getText(), PlanItemStatus.valueOf(i.getStatus().name()))).toList(),
                new SessionProjection.Progress(c.getProgress().getLastVerifiedStep(), c.getProgress().getStepsCompleted(),
                        c.getProgress().getLastNote()),
                c.getApprovals().stream().map(a -> new SessionProjection.Grant(a.getGrantSeq(), a.getTool(), a.getPathGlob(),
                        a.getApprover())).toList(),
                c.getCompaction() == null ? null : new SessionProjection.Compaction(c.getCompaction().getThroughSeq(),
                        c.getCompaction().getCompactedAtSeq(), c.getCompaction().getFacts()),
                new SessionProjection.Position(c.getLogPosition().getPartition(), c.getLogPosition().getFirstOffset(),
                        c.getLogPosition().getLastOffset()),
                c.getLease() == null ? null : new SessionProjection.Lease(c.getLease().getWorkerId(), c.getLease().getEpoch(),
                        c.getLease().getHarnessVersion(), c.getLease().getClaimedAt()),
                c.getDecisions().stream().map(d -> new SessionProjection.Decision(d.getSeq(), d.getKind(), d.getCallId(), d.getSummary()))
                        .toList(),
                c.getArtifacts().stream().map(a -> new SessionProjection.Artifact(a.getSeq(), a.getUri(), a.getSha256(), a.getSize(),
                        a.getLabel())).toList(),
                new SessionProjection.CallCounts(c.getCallCounts().getOk(), c.getCallCounts().getError(),
                        c.getCallCounts().getCancelled(), c.getCallCounts().getUnknown()),
                c.getUpdatedAt(),
                harnessTools(c));
    }

    /** The tools the checkpoint's session declared its harness runs, as its first event declared them. */
    public static List<dev.tether.core.event.HarnessTool> harnessTools(Checkpoint c) {
        return c.getHarnessTools().stream().map(t -> new dev.tether.core.event.HarnessTool(t.getName(), t.getMutating(),
                t.getCanReconcile(), t.getRecordedOnly())).toList();
    }
}
