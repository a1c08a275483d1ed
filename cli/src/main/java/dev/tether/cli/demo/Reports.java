package dev.tether.cli.demo;

import dev.tether.client.Checkpoint;
import dev.tether.client.RecoveryReport;
import dev.tether.cli.commands.EventSummary;
import dev.tether.cli.commands.Views;
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
        out.println("recovery report");
        out.printf("  identity   %s of tenant %s, owner %s, model %s, harness %s, epoch %d%n", id.sessionId(), id.tenantId(),
                id.owner(), id.modelId(), id.harnessVersion(), id.epoch());
        out.printf("  position   lastSeq %d, step %d, last verified step %d, status %s%n", position.lastSeq(), position.step(),
                position.lastVerifiedStep(), position.status());
        out.printf("  confirmed  %s%n", calls(effects.confirmed()));
        out.printf("  unknown    %s%n", calls(effects.unknown()));
        out.printf("  in flight  %s%n", calls(effects.inFlight()));
        out.printf("  cancelled  %s%n", calls(effects.cancelled()));
        out.printf("  harness    %s%n", effects.harnessRun().isEmpty() ? "none" : effects.harnessRun().stream()
                .map(c -> c.callId() + " (" + c.tool() + ", " + c.outcome() + ", attempt " + c.attempt()
                        + (c.startedEpoch().isPresent() ? ", epoch " + c.startedEpoch().getAsLong() : "") + ")")
                .collect(Collectors.joining(", ")));
        out.printf("  grants     %s%n", report.authority().approvalsInForce().isEmpty() ? "none"
                : report.authority().approvalsInForce().stream()
                        .map(g -> g.tool() + g.pathGlob().map(p -> " " + p).orElse("") + " by " + g.approver() + " (seq " + g.grantSeq() + ")")
                        .collect(Collectors.joining("; ")));
        out.printf("  pending    %s%n", calls(report.authority().pendingApprovals()));
        report.nextSafeActions().forEach(a -> out.println("  next       " + a));
    }

    static void printCheckpoint(Checkpoint c, PrintStream out) {
        out.printf("  status %s, step %d (last verified %d), lastSeq %d, tokens in %d / out %d, model %s, harness %s%n",
                c.status(), c.step(), c.progress().lastVerifiedStep(), c.lastSeq(), c.usedTokens().inputTokens(),
                c.usedTokens().outputTokens(), c.modelId(), c.harnessVersion());
        c.plan().forEach(p -> out.printf("  plan   [%s] %s%n", p.status(), p.text()));
        c.toolCursor().forEach(call -> out.printf("  call   %-13s %-10s %s%s%n", call.callId(), call.tool(), call.state(),
                call.harnessRun() ? " (run by the harness)" : ""));
    }

    static void printTimeline(List<SessionEvent> events, PrintStream out) {
        for (SessionEvent e : events) {
            out.printf("  %3d  %-24s %-22s %s%n", e.seq(), e.actor().kind() + ":" + e.actor().id(), e.type(),
                    Views.clip(EventSummary.gist(e), WIDTH));
        }
    }

    private static String calls(List<RecoveryReport.Call> calls) {
        return calls.isEmpty() ? "none" : calls.stream().map(c -> c.callId() + " (" + c.tool() + ", " + c.state() + ")")
                .collect(Collectors.joining(", "));
    }
}
