package dev.tether.reliability;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.client.AppendResult;
import dev.tether.client.Appended;
import dev.tether.client.ClaimRequest;
import dev.tether.client.ClaimResult;
import dev.tether.client.Claimed;
import dev.tether.client.Fenced;
import dev.tether.client.NewEvent;
import dev.tether.client.Rejected;
import dev.tether.client.SessionEvent;
import dev.tether.client.SessionWriter;
import dev.tether.client.TetherClient;
import dev.tether.client.TokenUsage;
import dev.tether.client.ToolCall;
import dev.tether.testing.PlantedSecrets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One chaos session's agent, run inside a {@link ChaosWorker} process: a fixed script of {@code rounds} rounds, every
 * step appended under a fixed step key, so a worker that takes the session over replays it from the start and every
 * step already in the log comes back as a duplicate.
 *
 * <p>Round 0 asks (the user message carries one of {@link PlantedSecrets}; round 1's carries all of them: none may be
 * stored) and writes
 * {@code notes.txt} ("round 0"). Each round r ≥ 1 runs the counting command {@code sleep 2; echo x >> count.txt}
 * (slow, so a killed tool-executor can leave its outcome unknown) and edits {@code notes.txt} from "round r-1" to
 * "round r"; every call is gated and approved by the {@link ScriptedHuman}. Round 1 carries an interrupted turn with
 * two pending calls asked for in the same append (a gated command on {@code stopped.txt}, a {@code read_file} on
 * policy), which must never run; round 2 a context compaction. Round r does not start before {@code startMillis + r × paceMillis}, so the sessions span
 * the fault window; then the session is closed.
 *
 * <p>A step that fails because a service is down is retried under the same claim until {@code giveUpAt}. A
 * {@link Fenced} answer means another worker took the session over: this worker stops working on it at once.
 * Not thread-safe: one thread per session.
 */
final class ScriptedSession {

    static final String COUNT_FILE = "count.txt";
    static final String NOTES_FILE = "notes.txt";
    static final String COUNT_COMMAND = "sleep 2; echo x >> " + COUNT_FILE;
    /** The file the interrupted turn's command would append to: it must never exist. */
    static final String STOPPED_FILE = "stopped.txt";
    static final String STOPPED_COMMAND = "echo x >> " + STOPPED_FILE;
    /** The calls of round 1's interrupted turn: each must get one CANCELLED result, no authorization, no execution. */
    static final String STOPPED_COMMAND_CALL = "stopped-1";
    static final String STOPPED_READ_CALL = "peek-1";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(30);

    /** How a worker left the session. */
    enum Outcome { CLOSED, FENCED, GAVE_UP }

    /** The worker was fenced: another worker claimed the session. */
    static final class FencedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        FencedException(String message) {
            super(message);
        }
    }

    private final TetherClient tether;
    private final String sessionId;
    private final int number;
    private final int rounds;
    private final long startMillis;
    private final long paceMillis;
    private final long giveUpAt;
    private String lastError = "";

    ScriptedSession(TetherClient tether, String sessionId, int number, int rounds, long startMillis, long paceMillis,
                    long giveUpAt) {
        this.tether = tether;
        this.sessionId = sessionId;
        this.number = number;
        this.rounds = rounds;
        this.startMillis = startMillis;
        this.paceMillis = paceMillis;
        this.giveUpAt = giveUpAt;
    }

    String lastError() {
        return lastError;
    }

    /** The planted secret of session {@code number} (1-based): the text planted in its first user message. */
    static PlantedSecrets.Planted secretOf(int number) {
        List<PlantedSecrets.Planted> all = PlantedSecrets.all();
        return all.get((number - 1) % all.size());
    }

    /** Claims the session as {@code workerId} and plays the script; returns how it left the session. */
    Outcome run(String workerId) throws InterruptedException {
        try {
            Claimed claim = claim(workerId);
            if (claim != null) {
                play(tether.writer(claim));
            }
            return Outcome.CLOSED;
        } catch (FencedException e) {
            lastError = e.getMessage();
            return Outcome.FENCED;
        } catch (GiveUp e) {
            return Outcome.GAVE_UP;
        }
    }

    /** The claim; null if the session is closed already. A fenced claim (someone claimed after us) is fenced. */
    private Claimed claim(String workerId) throws InterruptedException {
        while (true) {
            // a fixed request id: retrying the claim after a failed answer is not a second takeover
            ClaimResult result = retrying("claim", () -> tether.claim(sessionId, ClaimRequest.of(workerId, "v1").withRequestId(workerId)));
            if (result instanceof Claimed c) {
                return c;
            } else if (result instanceof Fenced f) {
                throw new FencedException("claim fenced: " + f.message());
            } else if (result instanceof Rejected r && r.code().equals(Rejected.SESSION_CLOSED)) {
                return null; // an earlier worker closed it before it died
            } else {
                lastError = "claim: " + result;
                checkGiveUp();
                pause();
            }
        }
    }

    private void play(SessionWriter writer) throws InterruptedException {
        step(writer, "000-ask", NewEvent.userMessage("Keep a count and a note, round after round. The deploy key, for "
                + "reference: " + secretOf(number).text()));
        step(writer, "000-write", assistant("Writing the note.", call("write-0", "write_file",
                Map.of("path", NOTES_FILE, "content", "round 0\n"))));
        awaitSettled("write-0");
        for (int round = 1; round <= rounds; round++) {
            long notBefore = startMillis + round * paceMillis;
            while (System.currentTimeMillis() < notBefore) {
                Thread.sleep(Math.min(500, Math.max(1, notBefore - System.currentTimeMillis())));
            }
            String r = String.format("%03d", round);
            step(writer, r + "-count", assistant("Counting.", call("count-" + round, "run_command", Map.of("command", COUNT_COMMAND))));
            awaitSettled("count-" + round);
            if (round == 1) {
                // the user presses stop while the model asks for more: calls of an interrupted turn, asked for in the
                // append that interrupts it, one gated (the counting command on stopped.txt) and one on policy
                // (read_file, which the approval-service authorized at once before issue 15): neither may ever run
                step(writer, r + "-interrupted", NewEvent.assistantMessage("Let me also rewr", List.of(
                                call(STOPPED_COMMAND_CALL, "run_command", Map.of("command", STOPPED_COMMAND)),
                                call(STOPPED_READ_CALL, "read_file", Map.of("path", NOTES_FILE))), new TokenUsage(100, 10)),
                        NewEvent.turnInterrupted("Let me also rewr", "the user pressed stop"));
                step(writer, r + "-carry-on", NewEvent.userMessage("Carry on with the note only. My environment, in case it helps:\n"
                        + String.join("\n", PlantedSecrets.all().stream().map(PlantedSecrets.Planted::text).toList())));
            }
            step(writer, r + "-edit", assistant("Editing the note.", call("edit-" + round, "edit_file",
                    Map.of("path", NOTES_FILE, "old", "round " + (round - 1), "new", "round " + round))));
            SessionEvent edited = awaitSettled("edit-" + round);
            if (round == 2) {
                // the seq comes from the log, so a worker replaying the script sends the same compaction
                step(writer, r + "-compact", NewEvent.contextCompacted(edited.seq(),
                        "The note went from round 0 to round 2; the count has two lines.", List.of(1L)));
            }
        }
        step(writer, "999-close", NewEvent.sessionClosed("done after " + rounds + " rounds"));
    }

    private void step(SessionWriter writer, String key, NewEvent... events) throws InterruptedException {
        AppendResult result = retrying("step " + key, () -> writer.append(key, events));
        if (result instanceof Fenced f) {
            throw new FencedException("fenced at step " + key + ": " + f.message());
        }
        Appended appended = result.appendedOrThrow();
        if (appended.seqs().isEmpty()) {
            throw new IllegalStateException("step " + key + " got no seqs");
        }
    }

    /**
     * The event that settles a call: a {@code tool_result} other than UNKNOWN, or a human's
     * {@code tool_outcome_resolved} that is not a retry (a retry is followed by a new {@code tool_result}).
     */
    private SessionEvent awaitSettled(String callId) throws InterruptedException {
        while (true) {
            Optional<SessionEvent> settled = retrying("await " + callId, () -> {
                try {
                    return tether.awaitEvent(sessionId, 1, e -> settles(e, callId), SETTLE_TIMEOUT);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            });
            if (settled.isPresent()) {
                return settled.get();
            }
            if (Thread.currentThread().isInterrupted()) {
                throw new InterruptedException();
            }
            lastError = "no settled result for " + callId + " within " + SETTLE_TIMEOUT;
            checkGiveUp();
        }
    }

    static boolean settles(SessionEvent e, String callId) {
        if (!e.text("callId").orElse("").equals(callId)) {
            return false;
        }
        return switch (e.type()) {
            case "tool_result" -> !e.text("status").orElse("").equals("UNKNOWN");
            case "tool_outcome_resolved" -> !e.text("resolution").orElse("").equals("RETRY");
            default -> false;
        };
    }

    private <T> T retrying(String what, java.util.function.Supplier<T> call) throws InterruptedException {
        while (true) {
            try {
                return call.get();
            } catch (RuntimeException e) {
                // a service is down longer than the SDK's own retries: the same request again, under the same claim
                lastError = what + ": " + e;
                checkGiveUp();
                pause();
            }
            if (Thread.currentThread().isInterrupted()) {
                throw new InterruptedException();
            }
        }
    }

    private void checkGiveUp() {
        if (System.currentTimeMillis() > giveUpAt) {
            throw new GiveUp();
        }
    }

    private static void pause() throws InterruptedException {
        Thread.sleep(1000);
    }

    private static final class GiveUp extends RuntimeException {
        private static final long serialVersionUID = 1L;
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
}
