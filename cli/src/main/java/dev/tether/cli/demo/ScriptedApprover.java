package dev.tether.cli.demo;

import dev.tether.client.Approval;
import dev.tether.client.ApprovalDecision;
import dev.tether.client.ApprovalFilter;
import dev.tether.client.TetherClient;
import java.io.PrintStream;
import java.util.HashSet;
import java.util.Set;

/**
 * The demo's human approver, scripted: it watches the approval API for the demo session's pending requests, shows
 * what it is asked to approve, and decides — an edit under {@code src/} is granted for the rest of the session
 * (tool {@code edit_file}, paths {@code src/**}), the check script is granted once, anything else is denied. It runs on
 * its own thread until {@link #stop()}.
 */
final class ScriptedApprover implements Runnable {

    private final TetherClient tether;
    private final String sessionId;
    private final PrintStream out;
    private final Set<String> decided = new HashSet<>();
    private volatile boolean running = true;

    ScriptedApprover(TetherClient tether, String sessionId, PrintStream out) {
        this.tether = tether;
        this.sessionId = sessionId;
        this.out = out;
    }

    void stop() {
        running = false;
    }

    @Override
    public void run() {
        while (running) {
            try {
                for (Approval pending : tether.approvals(ApprovalFilter.pending())) {
                    if (pending.sessionId().equals(sessionId) && decided.add(pending.id())) {
                        decide(pending);
                    }
                }
                Thread.sleep(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                Reports.line(out, "[approver] %s (trying again)", e.getMessage()); // a service's message may quote stored data
            }
        }
    }

    private void decide(Approval request) {
        ApprovalDecision decision;
        if (request.tool().equals("edit_file")) {
            decision = ApprovalDecision.grantSession("edit_file", "src/**", "the rename stays inside src/");
        } else if (request.tool().equals("run_command") && request.shown().contains("sh check.sh")) {
            decision = ApprovalDecision.grantOnce("check.sh only reads the sources");
        } else {
            decision = ApprovalDecision.deny("not part of this task");
        }
        Reports.line(out, "[approver] %s asks for %s (%s). Shown to the approver:", request.callId(), request.tool(), request.kind());
        request.shown().lines().forEach(line -> Reports.line(out, "[approver]   | %s", line));
        out.printf("[approver] decides %s%s%s: %s%n", decision.kind(), decision.tool().map(t -> " " + t).orElse(""),
                decision.pathGlob().map(g -> " " + g).orElse(""), tether.decide(request, decision).getClass().getSimpleName());
    }
}
