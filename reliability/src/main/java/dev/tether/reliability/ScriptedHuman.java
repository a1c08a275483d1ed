package dev.tether.reliability;

import dev.tether.client.Approval;
import dev.tether.client.ApprovalDecision;
import dev.tether.client.ApprovalFilter;
import dev.tether.client.TetherClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The chaos run's human, scripted: it polls the approval API and decides every pending request of the run's sessions.
 * An {@code APPROVAL} is granted once. An {@code UNKNOWN_OUTCOME} is resolved by looking at the workspace, as a person
 * would: if the effect is there (count.txt has as many lines as the round number, or notes.txt holds the new text) it
 * marks the call done, otherwise it asks for a retry. Runs on its own thread until {@link #stop()}.
 */
final class ScriptedHuman implements Runnable {

    private final TetherClient tether;
    private final Set<String> sessions;
    private final Path workspaces;
    private final Set<String> decided = ConcurrentHashMap.newKeySet();
    private final AtomicInteger approvals = new AtomicInteger();
    private final AtomicInteger unknowns = new AtomicInteger();
    private final AtomicInteger errors = new AtomicInteger();
    private volatile boolean running = true;

    ScriptedHuman(TetherClient tether, Set<String> sessions, Path workspaces) {
        this.tether = tether;
        this.sessions = Set.copyOf(sessions);
        this.workspaces = workspaces;
    }

    void stop() {
        running = false;
    }

    int approvals() {
        return approvals.get();
    }

    int unknowns() {
        return unknowns.get();
    }

    int errors() {
        return errors.get();
    }

    @Override
    public void run() {
        while (running) {
            try {
                for (Approval pending : tether.approvals(ApprovalFilter.pending())) {
                    if (sessions.contains(pending.sessionId()) && !decided.contains(pending.id())) {
                        tether.decide(pending.id(), decide(pending));
                        decided.add(pending.id());
                        // counted once answered: a decision whose request failed is asked again on the next poll
                        (pending.kind().equals("UNKNOWN_OUTCOME") ? unknowns : approvals).incrementAndGet();
                    }
                }
            } catch (RuntimeException e) {
                errors.incrementAndGet(); // the approval-service is down or restarting: try again
            }
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private ApprovalDecision decide(Approval request) {
        if (!request.kind().equals("UNKNOWN_OUTCOME")) {
            return ApprovalDecision.grantOnce("part of the chaos script");
        }
        String callId = request.callId();
        int round = Integer.parseInt(callId.substring(callId.indexOf('-') + 1));
        Path workspace = workspaces.resolve(request.sessionId());
        boolean happened;
        try {
            if (callId.startsWith("count-")) {
                Path count = workspace.resolve(ScriptedSession.COUNT_FILE);
                happened = Files.exists(count) && Files.readAllLines(count).size() >= round;
            } else {
                Path notes = workspace.resolve(ScriptedSession.NOTES_FILE);
                happened = Files.exists(notes) && Files.readString(notes).contains("round " + round);
            }
        } catch (IOException e) {
            happened = false;
        }
        System.out.printf("[human] %s %s: outcome UNKNOWN, the workspace shows it %s -> %s%n", request.sessionId(), callId,
                happened ? "happened" : "did not happen", happened ? "MARK_DONE" : "RETRY");
        return happened ? ApprovalDecision.markDone("the workspace shows the effect") : ApprovalDecision.retry("no effect in the workspace");
    }
}
