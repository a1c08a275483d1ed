package dev.tether.projector.migration;

import dev.tether.avro.CallCounts;
import dev.tether.avro.Checkpoint;
import dev.tether.avro.ToolCallCursor;
import dev.tether.avro.ToolCallState;

/**
 * Version 2 → 3: a call whose outcome is UNKNOWN stays in the tool cursor until a human resolves it.
 *
 * <p>Since {@code tool_outcome_resolved}, UNKNOWN no longer ends a call: the call waits for an approver's decision
 * (MARK_DONE, RETRY, ABANDON), which the fold applies to the call's cursor entry. Version 2 still counted UNKNOWN
 * among the finished calls it trims from the cursor (it keeps the last {@code FINISHED_CALLS_KEPT}), so ten later
 * calls could push a call awaiting a decision out of the checkpoint: its pending {@code human_decision} vanished and
 * its resolution found nothing to change. Version 3 trims only OK, ERROR and CANCELLED calls.
 *
 * <p>The two versions fold a session alike until the first trim. A version 2 checkpoint that never trimmed is
 * therefore already what version 3 folds, and only its version changes; whether it trimmed shows in its counts: every
 * call counted in {@code callCounts} is a finished entry of the cursor unless it was trimmed. One that trimmed may
 * have lost an UNKNOWN call, or kept fewer finished calls than version 3 keeps, and the checkpoint cannot tell which:
 * it is rebuilt from the log.
 */
final class UnknownCallsStayOpen implements CheckpointMigration {

    @Override
    public int from() {
        return 2;
    }

    @Override
    public String change() {
        return "calls with an UNKNOWN outcome stay in the tool cursor until resolved";
    }

    @Override
    public Outcome migrate(Checkpoint checkpoint) {
        CallCounts counts = checkpoint.getCallCounts();
        long counted = (long) counts.getOk() + counts.getError() + counts.getCancelled() + counts.getUnknown();
        long kept = checkpoint.getToolCursor().stream().filter(UnknownCallsStayOpen::finishedUnderVersion2).count();
        if (counted != kept) {
            return new NotMigratable(counted + " finished calls counted but " + kept + " kept in the tool cursor: version 2 trimmed"
                    + " finished calls and may have trimmed one still awaiting a human decision");
        }
        return new Migrated(Checkpoint.newBuilder(checkpoint).setSchemaVersion(3).build());
    }

    private static boolean finishedUnderVersion2(ToolCallCursor c) {
        ToolCallState s = c.getState();
        return s == ToolCallState.OK || s == ToolCallState.ERROR || s == ToolCallState.CANCELLED || s == ToolCallState.UNKNOWN;
    }
}
