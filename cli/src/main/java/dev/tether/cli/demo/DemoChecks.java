package dev.tether.cli.demo;

import dev.tether.client.CallRecord;
import dev.tether.client.SessionEvent;
import dev.tether.client.TetherClient;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** What the demo must have achieved, checked against the workspace, the log and the executor's ledger. */
final class DemoChecks {

    private static final List<String> CALLS = List.of("read-greeter", "read-main", "edit-greeter", "edit-main", "check");

    private final TetherClient tether;
    private final String sessionId;
    private final Path workspace;
    private final List<SessionEvent> events;
    private final PrintStream out;
    private boolean passed = true;

    DemoChecks(TetherClient tether, String sessionId, Path workspace, List<SessionEvent> events, PrintStream out) {
        this.tether = tether;
        this.sessionId = sessionId;
        this.workspace = workspace;
        this.events = events;
        this.out = out;
    }

    boolean run() throws IOException {
        String greeter = Files.readString(workspace.resolve(DemoAgent.GREETER));
        String main = Files.readString(workspace.resolve(DemoAgent.MAIN));
        check(count(greeter, "public String hello(") == 1 && !greeter.contains("greet("),
                "Greeter.java was edited exactly once: one hello(, no greet(");
        check(count(main, ".hello(\"Tether\")") == 1 && !main.contains("greet("),
                "Main.java was edited exactly once: one .hello(\"Tether\"), no greet(");
        for (String callId : CALLS) {
            long results = events.stream().filter(e -> e.type().equals("tool_result")
                    && e.text("callId").orElse("").equals(callId)).count();
            CallRecord call = tether.call(sessionId, callId).orElseThrow();
            int attempts = call.attempts().size();
            check(results == 1 && attempts == 1 && call.resultStatus().orElse("").equals("OK"),
                    String.format("%-12s %-11s ran %d time(s) in the executor's ledger, %d tool_result (%s), basis %s", callId,
                            call.tool(), attempts, results, call.resultStatus().orElse("none"), call.basis().orElse("none")));
        }
        long starts = events.stream().filter(e -> e.type().equals("tool_call_started")
                && e.text("callId").orElse("").equals(DemoAgent.TICKET_CALL)).count();
        List<SessionEvent> ticketResults = events.stream().filter(e -> e.type().equals("tool_result")
                && e.text("callId").orElse("").equals(DemoAgent.TICKET_CALL)).toList();
        boolean byTheHarness = ticketResults.size() == 1 && ticketResults.get(0).actor().kind().equals("TOOL")
                && ticketResults.get(0).text("status").orElse("").equals("OK") && tether.call(sessionId, DemoAgent.TICKET_CALL)
                        .map(c -> c.attempts().isEmpty()).orElse(false);
        check(starts == 1 && byTheHarness, String.format("%-12s %-11s ran %d time(s) in the harness (tool_call_started), %d tool_result"
                + " (%s), none in the executor's ledger", DemoAgent.TICKET_CALL, DemoAgent.LOOKUP_TICKET.name(), starts, ticketResults.size(),
                ticketResults.isEmpty() ? "none" : ticketResults.get(0).text("status").orElse("?")));
        check(events.stream().anyMatch(e -> e.type().equals("session_resumed") && e.text("reason").orElse("").equals("CRASH")),
                "worker-2 took over after the crash (session_resumed CRASH)");
        check(events.stream().anyMatch(e -> e.type().equals("turn_interrupted")), "an interrupted turn is in the log");
        check(events.stream().anyMatch(e -> e.type().equals("context_compacted")), "a context compaction is in the log");
        check(events.stream().map(SessionEvent::eventId).distinct().count() == events.size(), "no event is in the log twice");
        check(events.get(events.size() - 1).type().equals("session_closed"), "the session is closed");
        return passed;
    }

    private void check(boolean ok, String what) {
        out.println((ok ? "  ✔ " : "  ✘ ") + what);
        passed &= ok;
    }

    private static int count(String text, String part) {
        int count = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + part.length())) {
            count++;
        }
        return count;
    }
}
