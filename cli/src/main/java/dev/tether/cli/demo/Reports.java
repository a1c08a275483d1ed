package dev.tether.cli.demo;

import dev.tether.client.Checkpoint;
import dev.tether.client.RecoveryReport;
import dev.tether.cli.commands.EventSummary;
import dev.tether.cli.commands.Views;
import dev.tether.cli.output.Output;
import dev.tether.client.SessionEvent;
import java.io.PrintStream;
import java.util.List;
import java.util.stream.Collectors;

/** How the demo prints a recovery report, a checkpoint and a timeline (each event summed up as {@code tether sessions tail} does). Stateless. */
final class Reports {

    private static final int WIDTH = 72;

    private Reports() {}

    static void printRecovery(RecoveryReport report, PrintStream out) {
        var id = report.identity();
        var position = report.position();
        var effects = report.effects();
        line(out, "recovery report");
        line(out, "  identity   %s of tenant %s, owner %s, model %s, harness %s, epoch %d", id.sessionId(), id.tenantId(),
                id.owner(), id.modelId(), id.harnessVersion(), id.epoch());
        line(out, "  position   lastSeq %d, step %d, last verified step %d, status %s", position.lastSeq(), position.step(),
                position.lastVerifiedStep(), position.status());
        line(out, "  confirmed  %s", calls(effects.confirmed()));
        line(out, "  unknown    %s", calls(effects.unknown()));
        line(out, "  in flight  %s", calls(effects.inFlight()));
        line(out, "  cancelled  %s", calls(effects.cancelled()));
        line(out, "  harness    %s", effects.harnessRun().isEmpty() ? "none" : effects.harnessRun().stream()
                .map(c -> c.callId() + " (" + c.tool() + ", " + c.outcome() + ", attempt " + c.attempt()
                        + (c.startedEpoch().isPresent() ? ", epoch " + c.startedEpoch().getAsLong() : "") + ")")
                .collect(Collectors.joining(", ")));
        line(out, "  grants     %s", report.authority().approvalsInForce().isEmpty() ? "none"
                : report.authority().approvalsInForce().stream()
                        .map(g -> g.tool() + g.pathGlob().map(p -> " " + p).orElse("") + " by " + g.approver() + " (seq " + g.grantSeq() + ")")
                        .collect(Collectors.joining("; ")));
        line(out, "  pending    %s", calls(report.authority().pendingApprovals()));
        report.nextSafeActions().forEach(a -> line(out, "  next       %s", a));
    }

    static void printCheckpoint(Checkpoint c, PrintStream out) {
        line(out, "  status %s, step %d (last verified %d), lastSeq %d, tokens in %d / out %d, model %s, harness %s",
                c.status(), c.step(), c.progress().lastVerifiedStep(), c.lastSeq(), c.usedTokens().inputTokens(),
                c.usedTokens().outputTokens(), c.modelId(), c.harnessVersion());
        c.plan().forEach(p -> line(out, "  plan   [%s] %s", p.status(), p.text()));
        c.toolCursor().forEach(call -> line(out, "  call   %-13s %-10s %s%s", call.callId(), call.tool(), call.state(),
                call.harnessRun() ? " (run by the harness)" : ""));
    }

    static void printTimeline(List<SessionEvent> events, PrintStream out) {
        for (SessionEvent e : events) {
            line(out, "  %3d  %-24s %-22s %s", e.seq(), e.actor().kind() + ":" + e.actor().id(), e.type(),
                    Views.clip(EventSummary.gist(e), WIDTH));
        }
    }

    /**
     * Prints {@code format} with {@code args} as one line, its stored text ({@link Output#printable}) shown and never
     * obeyed: a tool's output, a plan or a diff in the log may hold a terminal's escape sequences.
     */
    static void line(PrintStream out, String format, Object... args) {
        out.println(Output.printable(String.format(format, args)));
    }

    private static String calls(List<RecoveryReport.Call> calls) {
        return calls.isEmpty() ? "none" : calls.stream().map(c -> c.callId() + " (" + c.tool() + ", " + c.state() + ")")
                .collect(Collectors.joining(", "));
    }
}
