package dev.tether.approval.rest;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.approval.domain.ApprovalItem;
import dev.tether.approval.domain.DecisionKind;
import dev.tether.core.event.CallRunner;
import dev.tether.kit.service.openapi.ApiField;
import dev.tether.kit.service.openapi.ApiType;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The approvers' API's bodies, for its OpenAPI document only ({@link ApprovalApiDocument}): {@link ApprovalResource} reads
 * a decision field by field and builds its answers as JSON trees ({@link ItemJson}) with exactly these fields. A field of
 * type {@link Optional} may be absent; every other one is always there.
 */
final class Answers {

    private Answers() {}

    @ApiType(description = "An approver's decision: GRANT_ONCE, GRANT_SESSION (optionally for a tool and a path glob) or DENY on an "
            + "APPROVAL; MARK_DONE, RETRY or ABANDON on an UNKNOWN_OUTCOME. No other field is accepted.", required = "decision")
    record Decision(DecisionKind decision,
                    @ApiField(description = "GRANT_SESSION: the tool the grant covers (the call's by default)") String tool,
                    @ApiField(description = "GRANT_SESSION: the paths the grant covers, e.g. src/**; any when left out") String pathGlob,
                    @ApiField(description = "why; a denial's reason reaches the model") String reason,
                    @ApiField(description = "the item's requestedAt as the approver saw it: when given, a decision on an item "
                            + "requested at another time (its session was erased and made again under its id, and another call "
                            + "waits under the same item id) is refused with 409 rather than taken for it") java.time.Instant requestedAt) {}

    @ApiType(description = "What an approver decides on: the call, exactly what it would do (shown), who asked and when, where it "
            + "stands, and while it is pending the decisions it takes.")
    record Item(@ApiField(description = "<sessionId>~<seq>") String id, ApprovalItem.Kind kind, ApprovalItem.Status status,
                String sessionId, String callId, String tool,
                @ApiField(description = "the call's arguments: their JSON, or their text when it is not JSON") JsonNode arguments,
                @ApiField(description = "exactly what the call would do: the diff, the command line, the URL") String shown,
                @ApiField(description = "where the whole shown text is kept when it was too large for the event") Optional<ShownRef> shownRef,
                @ApiField(description = "with shownRef: whether shown is the whole text, read back") Optional<Boolean> shownComplete,
                long seq, long requestSeq, Instant requestedAt, String requestedBy,
                @ApiField(nullable = true, description = "the session's model") String model,
                Optional<Instant> expiresAt, Optional<String> outcome, Optional<List<DecisionKind>> decisions,
                @ApiField(description = "while pending: who runs the call, EXECUTOR or HARNESS (the session's harness, on no workspace "
                        + "path Tether knows: a session grant of it takes no path glob)") Optional<CallRunner> runBy,
                @ApiField(description = "while pending: a path glob a session grant for the call's directory would use, for a call "
                        + "on a plain path the executor runs") Optional<String> suggestedPathGlob,
                Optional<RecordedDecision> decision, Optional<String> endedBecause) {}

    @ApiType(description = "A blob reference.")
    record ShownRef(String uri, String sha256, long size) {}

    @ApiType(description = "A decision as the log recorded it.")
    record RecordedDecision(DecisionKind decision, String approver, String reason, Optional<String> tool, Optional<String> pathGlob,
                            long seq, Instant decidedAt) {}

    @ApiType(description = "The items of the caller's tenant, oldest first unless newest were asked for; with a limit, a page.")
    record Items(List<Item> approvals,
                 @ApiField(description = "where the next page starts, <requestedAt>~<item id> of this page's last item (pass it "
                         + "as after); absent on the last page and when no limit was asked for") Optional<String> nextAfter) {}

    @ApiType(description = "A session-scope grant in force, with the calls it authorized without asking.")
    record Grant(String sessionId, long seq, String tool, Optional<String> pathGlob, String approver, Instant grantedAt, int uses,
                 List<String> usedBy) {}

    @ApiType(description = "The session-scope grants in force in the caller's tenant, oldest first.")
    record Grants(List<Grant> grants) {}
}
