package dev.tether.approval.kafka;

import dev.tether.approval.domain.ApprovalItem;
import dev.tether.approval.domain.DecisionKind;
import dev.tether.approval.domain.SessionApprovals;
import dev.tether.approval.domain.SessionApprovals.Grant;
import dev.tether.approval.domain.SessionApprovals.OpenCall;
import dev.tether.approval.domain.SessionApprovals.Stage;
import dev.tether.core.blob.BlobRef;
import dev.tether.core.event.ToolMode;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The values the golden files of the approval-service's session store hold: one with every field set (every kind of
 * open call, grant and item), one as a session starts. Never change them: the golden files of released encodings are
 * these values as those releases wrote them.
 */
final class StoreSamples {

    private static final Instant T = Instant.parse("2026-11-29T10:00:00Z");
    private static final BlobRef SHOWN = BlobRef.of("a".repeat(64), 70_000, "--- a/big.txt");

    private StoreSamples() {}

    static SessionApprovals full() {
        var calls = Map.of(
                "c1", new OpenCall("write_file", "{\"path\":\"a.txt\"}", 5, "agent-1", Stage.AWAITING_APPROVAL, "--- a/a.txt", SHOWN,
                        null, null, null),
                "c2", new OpenCall("run_command", "{\"command\":\"ls\"}", 6, "agent-1", Stage.CONFLICTED, "ls", null, 8L,
                        "granted after it was answered", Stage.GRANTED),
                "c3", new OpenCall("read_file", "{}", 9, "agent-1", Stage.REQUESTED, null, null, null, null, null));
        var grants = List.of(
                new Grant(8, "edit_file", "src/**", "alice", T, 3, List.of("c4", "c5")),
                new Grant(11, "run_command", null, "bob", T.plusSeconds(60), 0, List.of()));
        var items = List.of(
                new ApprovalItem("s-golden", 7, ApprovalItem.Kind.APPROVAL, ApprovalItem.Status.PENDING, "acme", "c1", "write_file",
                        "{\"path\":\"a.txt\"}", "--- a/a.txt", SHOWN, 5, T, "model-x", "agent-1", null, null, null, true),
                new ApprovalItem("s-golden", 8, ApprovalItem.Kind.APPROVAL, ApprovalItem.Status.GRANTED, "acme", "c4", "edit_file",
                        "{}", "diff", null, 4, T, "model-x", "agent-1", null,
                        new ApprovalItem.Decision(DecisionKind.GRANT_SESSION, "alice", "fine", "edit_file", "src/**", 8, T.plusSeconds(5)),
                        null, false),
                new ApprovalItem("s-golden", 10, ApprovalItem.Kind.UNKNOWN_OUTCOME, ApprovalItem.Status.CANCELLED, "acme", "c6",
                        "run_command", "{\"command\":\"make\"}", "make", null, 3, T, "model-x", "agent-1", "the executor died",
                        null, "interrupted", false));
        return new SessionApprovals("s-golden", "acme", ToolMode.WRITE, "model-x", 12, false, 9, calls, grants, items);
    }

    static SessionApprovals started() {
        return new SessionApprovals("s-min", "acme", ToolMode.READ_ONLY, "model-x", 1, false, 0, Map.of(), List.of(), List.of());
    }
}
