package dev.tether.projector.context;

import dev.tether.core.event.PlanItem;
import dev.tether.core.event.PlanUpdated;
import dev.tether.core.event.SessionClosed;
import dev.tether.core.event.SessionMigrated;
import dev.tether.core.event.SessionResumed;
import dev.tether.core.event.StepCompleted;
import dev.tether.core.event.SubagentResult;
import dev.tether.core.event.ToolOutcomeResolved;
import dev.tether.core.event.ToolResult;
import java.util.StringJoiner;

/**
 * The user-side notes that tell the model of events other than messages: a bracketed headline,
 * then the event's text on the lines below it. Made only of the events' own content, never of
 * times, seqs or event ids, so a note renders the same in every context. Pure and thread-safe.
 */
final class NoteText {

    private NoteText() {}

    /** {@code [plan]} and one numbered line per item, e.g. {@code 1. Read the code (DONE)}. */
    static String plan(PlanUpdated plan) {
        if (plan.items().isEmpty()) {
            return "[plan]\n(no items)";
        }
        var lines = new StringJoiner("\n", "[plan]\n", "");
        for (int i = 0; i < plan.items().size(); i++) {
            PlanItem item = plan.items().get(i);
            lines.add((i + 1) + ". " + item.text() + " (" + item.status() + ")");
        }
        return lines.toString();
    }

    /** {@code [step 3 completed, verified]} or {@code [step 3 completed, unverified]}, the note, then {@code evidence: ...}. */
    static String step(StepCompleted step) {
        String headline = "[step " + step.step() + " completed, " + (step.verified() ? "verified" : "unverified") + "]";
        String text = ContentText.joinLines(headline, step.note());
        boolean hasEvidence = step.evidence() != null && !step.evidence().isBlank();
        return hasEvidence ? text + "\nevidence: " + step.evidence() : text;
    }

    /** {@code [session resumed after CRASH]}, then the reconciliation. */
    static String resumed(SessionResumed resumed) {
        return ContentText.joinLines("[session resumed after " + resumed.reason() + "]", resumed.reconciliation());
    }

    /** {@code [session migrated from harness <from> to <to>]}. */
    static String migrated(SessionMigrated migrated) {
        return "[session migrated from harness " + migrated.fromVersion() + " to " + migrated.toVersion() + "]";
    }

    /** {@code [subagent <child session id> finished]}, then its outcome. */
    static String subagent(SubagentResult result) {
        return ContentText.joinLines("[subagent " + result.childSessionId() + " finished]", result.outcome());
    }

    /** {@code [session closed]}, then the outcome. */
    static String closed(SessionClosed closed) {
        return ContentText.joinLines("[session closed]", closed.outcome());
    }

    /**
     * A human's decision on a call whose outcome was unknown, e.g. {@code [tool call c1: a human confirmed it took effect]},
     * then the reason. After a retry the call's new result follows as a note of its own.
     *
     * @param callId the id the call is rendered under, which may differ from the one the harness used
     */
    static String resolved(ToolOutcomeResolved resolved, String callId) {
        String what = switch (resolved.resolution()) {
            case MARK_DONE -> "a human confirmed it took effect";
            case RETRY -> "a human had it run again; its new result follows";
            case ABANDON -> "a human abandoned it; it is not run again and its effect stays unknown";
        };
        return ContentText.joinLines("[tool call " + callId + ": " + what + "]", resolved.reason());
    }

    /**
     * A result whose call is not in the context (it was compacted away, or the result came twice):
     * {@code [result of tool call <callId>]}, then the result's text.
     *
     * @param callId the id the call is rendered under, which may differ from the one the harness used
     */
    static String orphanResult(ToolResult result, String callId) {
        return "[result of tool call " + callId + "]\n" + ToolResultText.of(result);
    }
}
