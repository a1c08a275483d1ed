package dev.tether.approval.kafka;

import dev.tether.core.event.CallRunner;
import dev.tether.core.event.HarnessTool;
import dev.tether.approval.domain.ApprovalItem;
import dev.tether.approval.domain.DecisionKind;
import dev.tether.approval.domain.SessionApprovals;
import dev.tether.approval.domain.SessionApprovals.Stage;
import dev.tether.core.blob.BlobRef;
import dev.tether.core.event.ToolMode;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link SessionApprovals} as the {@value ApprovalStores#SESSIONS} store and its changelog keep it: the fields of the
 * current version of its format ({@link ApprovalStoreFormats#SESSIONS}), in order. It changes only with a new version of
 * the format (docs/ARCHITECTURE.md §5, "How to change a store format"); the domain records may change freely, and are
 * mapped here.
 */
record StoredApprovals(
        String sessionId,
        String tenantId,
        ToolMode toolMode,
        String modelId,
        long lastSeq,
        boolean closed,
        long lastInterruptSeq,
        Map<String, Call> calls,
        List<Grant> grants,
        List<Item> items,
        List<Tool> harnessTools,
        Instant startedAt) {

    /** An open tool call. */
    record Call(String tool, String argumentsJson, long requestSeq, String requestedBy, Stage stage, String shown, Blob shownRef,
                Long grantSeq, String problem, Stage conflictedFrom, CallRunner runBy, String shownSha256) {}

    /** A declared harness-run tool. */
    record Tool(String name, boolean mutating, boolean canReconcile, boolean recordedOnly) {}

    /** A session-scope grant in force. */
    record Grant(long seq, String tool, String pathGlob, String approver, Instant grantedAt, int uses, List<String> usedBy) {}

    /** An item for approvers. */
    record Item(String sessionId, long seq, ApprovalItem.Kind kind, ApprovalItem.Status status, String tenantId, String callId,
                String tool, String argumentsJson, String shown, Blob shownRef, long requestSeq, Instant requestedAt, String modelId,
                String requestedBy, String outcome, Decision decision, String endedBecause, boolean expiring) {}

    /** A human's decision on an item. */
    record Decision(DecisionKind decision, String approver, String reason, String tool, String pathGlob, long seq, Instant decidedAt) {}

    /** Content kept in the blob store. */
    record Blob(String uri, String sha256, long size, String preview) {}

    static StoredApprovals of(SessionApprovals s) {
        var calls = new LinkedHashMap<String, Call>();
        s.calls().forEach((id, c) -> calls.put(id, new Call(c.tool(), c.argumentsJson(), c.requestSeq(), c.requestedBy(), c.stage(),
                c.shown(), blob(c.shownRef()), c.grantSeq(), c.problem(), c.conflictedFrom(), c.runBy(), c.shownSha256())));
        List<Grant> grants = s.grants().stream()
                .map(g -> new Grant(g.seq(), g.tool(), g.pathGlob(), g.approver(), g.grantedAt(), g.uses(), g.usedBy())).toList();
        List<Item> items = s.items().stream().map(StoredApprovals::item).toList();
        return new StoredApprovals(s.sessionId(), s.tenantId(), s.toolMode(), s.modelId(), s.lastSeq(), s.closed(), s.lastInterruptSeq(),
                calls, grants, items,
                s.harnessTools().stream().map(t -> new Tool(t.name(), t.mutating(), t.canReconcile(), t.recordedOnly())).toList(),
                s.startedAt());
    }

    SessionApprovals toApprovals() {
        var open = new LinkedHashMap<String, SessionApprovals.OpenCall>();
        calls.forEach((id, c) -> open.put(id, new SessionApprovals.OpenCall(c.tool(), c.argumentsJson(), c.requestSeq(), c.requestedBy(),
                c.stage(), c.shown(), blobRef(c.shownRef()), c.grantSeq(), c.problem(), c.conflictedFrom(), c.runBy(), c.shownSha256())));
        List<SessionApprovals.Grant> inForce = grants.stream()
                .map(g -> new SessionApprovals.Grant(g.seq(), g.tool(), g.pathGlob(), g.approver(), g.grantedAt(), g.uses(), g.usedBy()))
                .toList();
        List<ApprovalItem> forApprovers = items.stream().map(StoredApprovals::approvalItem).toList();
        return new SessionApprovals(sessionId, tenantId, toolMode, modelId, lastSeq, closed, lastInterruptSeq, open, inForce, forApprovers,
                harnessTools.stream().map(t -> new HarnessTool(t.name(), t.mutating(), t.canReconcile(), t.recordedOnly())).toList(),
                startedAt);
    }

    private static Item item(ApprovalItem i) {
        ApprovalItem.Decision d = i.decision();
        return new Item(i.sessionId(), i.seq(), i.kind(), i.status(), i.tenantId(), i.callId(), i.tool(), i.argumentsJson(), i.shown(),
                blob(i.shownRef()), i.requestSeq(), i.requestedAt(), i.modelId(), i.requestedBy(), i.outcome(),
                d == null ? null : new Decision(d.decision(), d.approver(), d.reason(), d.tool(), d.pathGlob(), d.seq(), d.decidedAt()),
                i.endedBecause(), i.expiring());
    }

    private static ApprovalItem approvalItem(Item i) {
        Decision d = i.decision();
        return new ApprovalItem(i.sessionId(), i.seq(), i.kind(), i.status(), i.tenantId(), i.callId(), i.tool(), i.argumentsJson(),
                i.shown(), blobRef(i.shownRef()), i.requestSeq(), i.requestedAt(), i.modelId(), i.requestedBy(), i.outcome(),
                d == null ? null : new ApprovalItem.Decision(d.decision(), d.approver(), d.reason(), d.tool(), d.pathGlob(), d.seq(),
                        d.decidedAt()),
                i.endedBecause(), i.expiring());
    }

    private static Blob blob(BlobRef ref) {
        return ref == null ? null : new Blob(ref.uri(), ref.sha256(), ref.size(), ref.preview());
    }

    private static BlobRef blobRef(Blob blob) {
        return blob == null ? null : new BlobRef(blob.uri(), blob.sha256(), blob.size(), blob.preview());
    }
}
