package dev.tether.projector.domain;

import dev.tether.core.event.PlanItem;
import dev.tether.projector.domain.SessionProjection.Artifact;
import dev.tether.projector.domain.SessionProjection.CallCursor;
import dev.tether.projector.domain.SessionProjection.Decision;
import java.util.ArrayList;
import java.util.List;

/**
 * The authoritative facts block of a model context, built from the session's typed state — never
 * from a summary, which may have lost or distorted them: the objective, the constraints, the
 * decisions taken, the work still open, the artifacts produced. Deterministic text. Pure.
 */
public final class Facts {

    static final String HEADER = "Authoritative facts (from the session's recorded state):";

    private Facts() {}

    /** The facts a session starts with: its objective and constraints. */
    public static String start(String objective, List<String> constraints) {
        return render(objective, constraints, List.of(), List.of(), List.of());
    }

    /** The facts as they stand in {@code state}. */
    public static String render(SessionProjection state) {
        var decisions = state.decisions().stream().map(Facts::line).toList();
        var artifacts = state.artifacts().stream().map(Facts::line).toList();
        return render(state.objective(), state.constraints(), decisions, openWork(state), artifacts);
    }

    /** Lines for the volatile tail: the plan items and tool calls still open now. */
    public static List<String> openWork(SessionProjection state) {
        var open = new ArrayList<String>();
        for (PlanItem item : Projection.openPlanItems(state)) {
            open.add("plan: " + item.text() + " (" + item.status() + ")");
        }
        for (CallCursor call : state.toolCursor()) {
            if (!call.state().finished()) {
                open.add("tool call " + call.callId() + " (" + call.tool() + "): " + call.state()
                        + (call.awaitingApproval() ? ", awaiting approval" : ""));
            }
        }
        return open;
    }

    private static String render(String objective, List<String> constraints, List<String> decisions, List<String> open,
                                 List<String> artifacts) {
        var sb = new StringBuilder(HEADER).append('\n');
        sb.append("Objective: ").append(objective).append('\n');
        section(sb, "Constraints", constraints);
        section(sb, "Decisions", decisions);
        section(sb, "Open work", open);
        section(sb, "Artifacts", artifacts);
        return sb.toString().stripTrailing();
    }

    private static void section(StringBuilder sb, String title, List<String> lines) {
        if (lines.isEmpty()) {
            return;
        }
        sb.append(title).append(":\n");
        lines.forEach(l -> sb.append("- ").append(l).append('\n'));
    }

    private static String line(Decision d) {
        return d.kind() + (d.callId() == null ? "" : " for call " + d.callId()) + ": " + d.summary();
    }

    private static String line(Artifact a) {
        return a.uri() + (a.size() > 0 ? " (" + a.size() + " bytes)" : "") + ": " + a.label();
    }
}
