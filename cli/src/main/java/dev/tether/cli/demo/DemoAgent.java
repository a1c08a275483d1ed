package dev.tether.cli.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.client.AppendResult;
import dev.tether.client.Appended;
import dev.tether.client.Claimed;
import dev.tether.client.HarnessRunResult;
import dev.tether.client.HarnessTool;
import dev.tether.client.HarnessToolRunner;
import dev.tether.client.NewEvent;
import dev.tether.client.PlanItem;
import dev.tether.client.SessionEvent;
import dev.tether.client.SessionWriter;
import dev.tether.client.TetherClient;
import dev.tether.client.TokenUsage;
import dev.tether.client.ToolCall;
import dev.tether.client.ToolCompleted;
import dev.tether.client.ToolOutput;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;

/**
 * The demo's agent: a deterministic fake model doing a small refactor (rename {@code Greeter.greet} to {@code hello}
 * and update its caller), through Tether only. Every step is appended under a fixed step key, so its eventIds are
 * the same whoever sends it: a worker that takes over after a crash plays the script from the start, every step
 * already in the log comes back as a duplicate (nothing is appended twice), every tool call already answered is
 * found answered (nothing runs twice), and it carries on where the dead worker stopped.
 *
 * <p>Not thread-safe: one per worker.
 */
final class DemoAgent {

    /** What the first worker prints, then hangs, once it has asked for the second edit: the demo kills it there. */
    static final String KILL_POINT = "(asked for the edit of Main.java; this worker now waits to be killed)";

    /**
     * The demo's one harness-run tool: the harness looks the task's ticket up itself (a read-only tool, so policy
     * authorizes it; docs/ARCHITECTURE.md §6, "Harness-run tools"). The session declares it when it starts.
     */
    static final HarnessTool LOOKUP_TICKET = HarnessTool.readOnly("lookup_ticket");
    static final String TICKET_CALL = "ticket";

    static final String GREETER = "src/demo/Greeter.java";
    static final String MAIN = "src/demo/Main.java";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TOOL_TIMEOUT = Duration.ofMinutes(3);

    private final TetherClient tether;
    private final SessionWriter writer;
    private final HarnessToolRunner harness;
    private final PrintStream out;
    private int duplicates;
    private int steps;

    DemoAgent(TetherClient tether, Claimed claim, PrintStream out) {
        this.tether = tether;
        this.writer = tether.writer(claim);
        this.out = out;
        // the ticket system is a fixed answer here; a real harness would ask it, passing the call's idempotency key
        this.harness = HarnessToolRunner.builder(tether, claim)
                .tool(LOOKUP_TICKET, call -> ToolOutput.ok("DEMO-42 (open): rename Greeter.greet to hello; callers must keep working"))
                .authorizationTimeout(TOOL_TIMEOUT)
                .build();
    }

    /**
     * Plays the script.
     *
     * @param hangMidway whether to stop, as a worker about to crash, right after asking for the second edit
     */
    void run(boolean hangMidway) throws InterruptedException {
        step("01-ask", NewEvent.userMessage("Rename Greeter.greet to hello, update its caller, and keep check.sh green."));
        step("02-read", assistant("Let me read the code first.", 900, 60,
                call("read-greeter", "read_file", Map.of("path", GREETER)),
                call("read-main", "read_file", Map.of("path", MAIN))));
        awaitResult("read-greeter");
        awaitResult("read-main");
        long ticket = step("02-ticket", assistant("Checking the ticket for anything else the change must keep.", 1100, 30,
                call(TICKET_CALL, LOOKUP_TICKET.name(), Map.of("ticket", "DEMO-42"))));
        runHarnessCall(ticket, TICKET_CALL);
        step("03-plan", NewEvent.planUpdated(List.of(
                PlanItem.inProgress("Rename greet to hello in Greeter.java"),
                PlanItem.pending("Update the caller in Main.java"),
                PlanItem.pending("Run check.sh"))));
        step("04-edit-greeter", assistant("Renaming the method in Greeter.java.", 1400, 80,
                call("edit-greeter", "edit_file", Map.of("path", GREETER, "old", "public String greet(String name)",
                        "new", "public String hello(String name)"))));
        awaitResult("edit-greeter");
        step("05-step-1", NewEvent.stepCompleted(1, "Greeter.greet is now Greeter.hello", true));
        step("06-edit-main", assistant("Updating the caller in Main.java.", 1600, 70,
                call("edit-main", "edit_file", Map.of("path", MAIN, "old", ".greet(\"Tether\")", "new", ".hello(\"Tether\")"))));
        if (hangMidway) {
            out.println(KILL_POINT);
            out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
        awaitResult("edit-main");
        long step2 = step("07-step-2", NewEvent.stepCompleted(2, "Main calls hello", true),
                NewEvent.planUpdated(List.of(PlanItem.done("Rename greet to hello in Greeter.java"),
                        PlanItem.done("Update the caller in Main.java"), PlanItem.inProgress("Run check.sh"))));
        step("08-ask-readme", NewEvent.userMessage("Also add a section about hello() to the README."));
        step("09-interrupted", NewEvent.turnInterrupted("Sure. I will add a short section to the READ",
                "the user pressed stop: changed their mind"));
        step("10-ask-check", NewEvent.userMessage("Never mind the README. Just run the check."));
        step("11-check", assistant("Running the check.", 1900, 40, call("check", "run_command", Map.of("command", "sh check.sh"))));
        SessionEvent check = awaitResult("check");
        step("12-compact", NewEvent.contextCompacted(step2,
                "Renamed Greeter.greet to hello (Greeter.java) and updated its only caller (Main.java); both edits"
                        + " confirmed. The README change was asked for, then withdrawn.",
                LongStream.rangeClosed(1, step2).boxed().toList()));
        step("13-step-3", NewEvent.stepCompleted(3, "check.sh passes", true).with("evidence", "tool_result seq " + check.seq()),
                NewEvent.planUpdated(List.of(PlanItem.done("Rename greet to hello in Greeter.java"),
                        PlanItem.done("Update the caller in Main.java"), PlanItem.done("Run check.sh"))));
        step("14-close", NewEvent.sessionClosed("greet() renamed to hello() in 2 files; check.sh passes"));
        out.printf("done: %d steps sent, %d of them already in the log (sent again as duplicates, appended nothing)%n",
                steps, duplicates);
    }

    /** Sends one step; returns the seq of its last event. */
    private long step(String key, NewEvent... events) {
        AppendResult result = writer.append(key, events);
        Appended appended = result.appendedOrThrow();
        steps++;
        List<Long> seqs = appended.seqs();
        if (appended.allDuplicates()) {
            duplicates++;
            out.printf("  step %-16s already in the log at seq %s: nothing appended%n", key, seqs);
        } else {
            out.printf("  step %-16s appended at seq %s: %s%n", key, seqs, types(events));
        }
        return seqs.get(seqs.size() - 1);
    }

    /**
     * Runs a harness-run call in this process ({@link HarnessToolRunner}: waits for its authorization, records its
     * start, runs it, reports it); a worker that plays the script again finds it answered and runs nothing.
     */
    private void runHarnessCall(long requestSeq, String callId) throws InterruptedException {
        HarnessRunResult result = harness.run(requestSeq, callId);
        if (!(result instanceof ToolCompleted done)) {
            throw new IllegalStateException("harness-run call " + callId + " ended " + result);
        }
        Reports.line(out, "  call %-17s %s at seq %d, run by this harness (%s, key %s): %s", callId, done.status(), done.resultSeq(),
                done.how() == ToolCompleted.How.RAN ? "ran it now" : done.how() == ToolCompleted.How.REPORTED_BEFORE
                        ? "answered before: not run again" : "reconciled", done.idempotencyKey(), done.content().orElse(""));
    }

    /** Waits for the call's tool_result, however long its approval takes. */
    private SessionEvent awaitResult(String callId) throws InterruptedException {
        SessionEvent result = tether.awaitEvent(writer.sessionId(), 1,
                        e -> e.type().equals("tool_result") && e.text("callId").orElse("").equals(callId), TOOL_TIMEOUT)
                .orElseThrow(() -> new IllegalStateException("no result for call " + callId + " within " + TOOL_TIMEOUT));
        Reports.line(out, "  call %-17s %s at seq %d: %s", callId, result.text("status").orElse("?"), result.seq(),
                result.text("content").orElse("").lines().findFirst().orElse(""));
        return result;
    }

    private static NewEvent assistant(String content, long in, long outTokens, ToolCall... calls) {
        return NewEvent.assistantMessage(content, List.of(calls), new TokenUsage(in, outTokens));
    }

    private static ToolCall call(String callId, String tool, Map<String, String> arguments) {
        try {
            return new ToolCall(callId, tool, JSON.writeValueAsString(arguments));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String types(NewEvent... events) {
        var types = new ArrayList<String>();
        for (NewEvent e : events) {
            types.add(e.type());
        }
        return String.join(", ", types);
    }
}
