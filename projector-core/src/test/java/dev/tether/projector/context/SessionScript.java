package dev.tether.projector.context;

import dev.tether.core.event.ApprovalGranted;
import dev.tether.core.event.ApprovalRequested;
import dev.tether.core.event.ApprovalScope;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.ContextCompacted;
import dev.tether.core.event.PlanItem;
import dev.tether.core.event.PlanItemStatus;
import dev.tether.core.event.PlanUpdated;
import dev.tether.core.event.ResumeReason;
import dev.tether.core.event.SessionClaimed;
import dev.tether.core.event.SessionResumed;
import dev.tether.core.event.StepCompleted;
import dev.tether.core.event.SubagentResult;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.UnknownEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * A session told as a list of actions, played into a realistic {@link SessionFixture}. Any list of
 * actions plays: an action that does not fit the session as it stands (a result when no call waits
 * for one) appends nothing, so a shrunk list is still a session.
 *
 * <p>Realistic means what Tether guarantees: results come once per call, after the call, possibly
 * after other events, some with no output; call ids are any Tether takes, some of them ids a provider refuses; a call of an interrupted turn gets a {@code CANCELLED} result or none;
 * compactions summarize through a seq no earlier than the previous compaction's.
 */
final class SessionScript {

    /** One thing that happens in a session. */
    sealed interface Action {}

    /** The user writes a message. */
    record UserSays(int length) implements Action {}

    /** The model answers with or without text, asking for {@code calls} tool calls (0 to 3). */
    record AssistantReplies(boolean withText, int calls) implements Action {}

    /** The result of the {@code pick}-th call that waits for one arrives. */
    record ResultArrives(int pick, ToolStatus status) implements Action {}

    /** The user cuts the current turn short. */
    record UserInterrupts(boolean withText) implements Action {}

    /** The plan changes to {@code items} items. */
    record PlanChanges(int items) implements Action {}

    /** A step is completed. */
    record StepDone(boolean verified) implements Action {}

    /** The context is compacted through {@code back} seqs before the current one (clamped). */
    record Compaction(int back) implements Action {}

    /** An event the model needs not see, or a note: claims, approvals, resumes, subagents. */
    record Bookkeeping(int kind) implements Action {}

    private final SessionFixture log = new SessionFixture();
    private final List<WaitingCall> waiting = new ArrayList<>();
    private List<WaitingCall> latestTurn = List.of();
    private int calls;
    private int steps;
    private long compactedThrough = 1;

    private SessionScript() {}

    /** The log of {@code actions}, after its {@code session_started}. */
    static SessionFixture play(List<Action> actions) {
        var script = new SessionScript();
        actions.forEach(script::play);
        return script.log;
    }

    private void play(Action action) {
        if (action instanceof UserSays says) {
            log.user("please " + "x".repeat(says.length()));
        } else if (action instanceof AssistantReplies replies) {
            reply(replies);
        } else if (action instanceof ResultArrives arrives) {
            deliver(arrives);
        } else if (action instanceof UserInterrupts interrupts) {
            interrupt(interrupts);
        } else if (action instanceof PlanChanges changes) {
            log.append(new PlanUpdated(IntStream.range(0, changes.items())
                    .mapToObj(i -> new PlanItem("item " + i, PlanItemStatus.values()[i % 4])).toList()));
        } else if (action instanceof StepDone done) {
            log.append(new StepCompleted(++steps, "step " + steps, done.verified(), null));
        } else if (action instanceof Compaction compaction) {
            compact(compaction);
        } else if (action instanceof Bookkeeping bookkeeping) {
            bookkeep(bookkeeping);
        } else {
            throw new IllegalArgumentException("unknown action " + action);
        }
    }

    private void reply(AssistantReplies replies) {
        latestTurn = IntStream.range(0, replies.calls()).mapToObj(i -> new WaitingCall(callId(++calls))).toList();
        waiting.addAll(latestTurn);
        ToolCall[] toolCalls = latestTurn.stream()
                .map(call -> new ToolCall(call.callId, "read_file", "{\"path\":\"" + call.callId + "\"}"))
                .toArray(ToolCall[]::new);
        log.assistant(replies.withText() ? "I will look." : "", toolCalls);
    }

    /** {@code c-<n>}, and every third an id that a provider refuses as it is, as some models' are. */
    private static String callId(int n) {
        return n % 3 == 0 ? "functions.read_file:" + n : "c-" + n;
    }

    private void deliver(ResultArrives arrives) {
        if (waiting.isEmpty()) {
            return;
        }
        WaitingCall call = waiting.remove(arrives.pick() % waiting.size());
        ToolStatus status = call.interrupted ? ToolStatus.CANCELLED : arrives.status();
        log.result(call.callId, status, arrives.pick() == 3 ? "" : "output of " + call.callId); // some print nothing
    }

    private void interrupt(UserInterrupts interrupts) {
        latestTurn.forEach(call -> call.interrupted = true);
        log.interrupted(interrupts.withText() ? "I was about to" : "", "user");
    }

    private void compact(Compaction compaction) {
        long current = log.lastSeq();
        compactedThrough = Math.max(compactedThrough, current - compaction.back());
        log.append(new ContextCompacted(compactedThrough, "summary through " + compactedThrough, null, List.of()));
    }

    private void bookkeep(Bookkeeping bookkeeping) {
        String callId = waiting.isEmpty() ? "c-none" : waiting.get(0).callId;
        log.append(switch (bookkeeping.kind() % 7) {
            case 0 -> new SessionClaimed("worker-" + bookkeeping.kind(), bookkeeping.kind() + 1L, "h-1");
            case 1 -> new ApprovalRequested(callId, "read_file", "read " + callId, null);
            case 2 -> new ApprovalGranted(callId, ApprovalScope.ONCE, "read_file", null, "alice", "");
            case 3 -> new ToolCallAuthorized(callId, AuthorizationBasis.POLICY);
            case 4 -> new SessionResumed(ResumeReason.CRASH, log.lastSeq(), "");
            case 5 -> new SubagentResult("s-" + bookkeeping.kind(), "done");
            default -> new UnknownEvent("from_the_future");
        });
    }

    /** A call no result has arrived for yet. */
    private static final class WaitingCall {
        private final String callId;
        private boolean interrupted;

        WaitingCall(String callId) {
            this.callId = callId;
        }
    }
}
