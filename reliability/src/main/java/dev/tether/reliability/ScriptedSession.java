package dev.tether.reliability;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.client.Appended;
import dev.tether.client.ClaimRequest;
import dev.tether.client.Claimed;
import dev.tether.client.NewEvent;
import dev.tether.client.SessionEvent;
import dev.tether.client.SessionWriter;
import dev.tether.client.TetherClient;
import dev.tether.client.TokenUsage;
import dev.tether.client.ToolCall;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One chaos session's agent: a deterministic script of rounds, each appended under a fixed step key, so a worker that
 * takes over after a failure replays it from the start and every step already in the log comes back as a duplicate.
 *
 * <p>Round 0 writes {@code notes.txt} ("round 0"). Each round r ≥ 1 runs the counting command
 * {@code echo x >> count.txt} and edits {@code notes.txt} from "round r-1" to "round r"; every call is gated and
 * approved by the {@link ScriptedHuman}. Round 1 also carries an interrupted turn. New rounds start until
 * {@code until} (nanoTime); then the session is closed. After any failure (a service killed under it) the agent
 * behaves like a crashed worker: a new worker id claims the session and replays the script.
 *
 * <p>Not thread-safe: one thread per session.
 */
final class ScriptedSession implements Runnable {

    static final String COUNT_FILE = "count.txt";
    static final String NOTES_FILE = "notes.txt";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration RESULT_TIMEOUT = Duration.ofSeconds(45);

    private final TetherClient tether;
    private final String sessionId;
    private final long until;
    private final long giveUpAt;
    private volatile int rounds = -1;
    private volatile int workers;
    private volatile boolean closed;
    private volatile String lastError = "";

    ScriptedSession(TetherClient tether, String sessionId, long until, long giveUpAt) {
        this.tether = tether;
        this.sessionId = sessionId;
        this.until = until;
        this.giveUpAt = giveUpAt;
    }

    String sessionId() {
        return sessionId;
    }

    /** Rounds the script asked for (the last replay's count); -1 before the first round. */
    int rounds() {
        return rounds;
    }

    /** Worker ids that claimed the session: 1 + the number of takeovers after a failure. */
    int workers() {
        return workers;
    }

    boolean closed() {
        return closed;
    }

    String lastError() {
        return lastError;
    }

    @Override
    public void run() {
        while (!closed && System.nanoTime() < giveUpAt && !Thread.currentThread().isInterrupted()) {
            try {
                String workerId = sessionId + "-worker-" + (++workers);
                Claimed claim = tether.claim(sessionId, ClaimRequest.of(workerId, "v1")).claimedOrThrow();
                play(tether.writer(claim));
                closed = true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                lastError = e.toString();
                sleep(1000);
            }
        }
    }

    private void play(SessionWriter writer) throws InterruptedException {
        step(writer, "000-ask", NewEvent.userMessage("Keep a count and a note, round after round."));
        step(writer, "000-write", assistant("Writing the note.", call("write-0", "write_file",
                Map.of("path", NOTES_FILE, "content", "round 0\n"))));
        awaitResult("write-0");
        int round = 1;
        for (; round == 1 || System.nanoTime() < until; round++) {
            rounds = round;
            String r = String.format("%03d", round);
            step(writer, r + "-count", assistant("Counting.", call("count-" + round, "run_command",
                    Map.of("command", "echo x >> " + COUNT_FILE))));
            awaitResult("count-" + round);
            if (round == 1) {
                step(writer, r + "-interrupted", NewEvent.turnInterrupted("Let me also rewr", "the user pressed stop"));
                step(writer, r + "-carry-on", NewEvent.userMessage("Carry on with the note only."));
            }
            step(writer, r + "-edit", assistant("Editing the note.", call("edit-" + round, "edit_file",
                    Map.of("path", NOTES_FILE, "old", "round " + (round - 1), "new", "round " + round))));
            awaitResult("edit-" + round);
        }
        step(writer, "999-close", NewEvent.sessionClosed("done after " + (round - 1) + " rounds"));
    }

    private void step(SessionWriter writer, String key, NewEvent... events) {
        Appended appended = writer.append(key, events).appendedOrThrow();
        if (appended.seqs().isEmpty()) {
            throw new IllegalStateException("step " + key + " got no seqs");
        }
    }

    private SessionEvent awaitResult(String callId) throws InterruptedException {
        return tether.awaitEvent(sessionId, 1,
                        e -> e.type().equals("tool_result") && e.text("callId").orElse("").equals(callId), RESULT_TIMEOUT)
                .orElseThrow(() -> new IllegalStateException("no result for call " + callId + " within " + RESULT_TIMEOUT));
    }

    private static NewEvent assistant(String content, ToolCall call) {
        return NewEvent.assistantMessage(content, List.of(call), new TokenUsage(100, 10));
    }

    private static ToolCall call(String callId, String tool, Map<String, String> arguments) {
        try {
            return new ToolCall(callId, tool, JSON.writeValueAsString(arguments));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
