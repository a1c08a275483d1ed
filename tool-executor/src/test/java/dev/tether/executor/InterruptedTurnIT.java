package dev.tether.executor;

import static dev.tether.executor.ExecutorScenario.AGENT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.avro.OutcomeState;
import dev.tether.avro.ToolOutcome;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A tool call of an interrupted turn never runs (issue 15 §2, docs/ARCHITECTURE.md §6), on the real stack: the
 * session-service, the projector, the approval-service and the executor as processes. The counting tool is
 * {@code run_command} appending a line to {@code count.txt} in the session's workspace (acme's WRITE sessions run it on
 * policy here); a call that ran would leave a line there, and a STARTED entry in {@code tool-outcomes}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class InterruptedTurnIT {

    private static final String COUNT = "{\"command\":\"echo x >> count.txt\"}";

    private ExecutorScenario scenario;

    @BeforeAll
    void start() throws Exception {
        scenario = ExecutorScenario.withApprovals("xintr");
    }

    @AfterAll
    void stop() throws Exception {
        scenario.close();
    }

    /**
     * The executor is down while a call is authorized (POLICY) and its turn is then interrupted: when it comes back it
     * finds the request, catches up with the session's interruptions before it starts anything, and answers CANCELLED.
     */
    @Test
    @Order(1)
    void aCallAuthorizedBeforeTheInterruption_thatHadNotStarted_neverStarts() {
        String session = scenario.prefix + "late";
        scenario.createSession(session, AGENT, "WRITE");
        long seq = scenario.askFor(session, AGENT, Map.of("c1", List.of("run_command", COUNT)));
        await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(300))
                .until(() -> scenario.events(session, AGENT).stream().anyMatch(e -> e.get("type").asText().equals("tool_call_authorized")));
        scenario.append(session, AGENT, Map.of("type", "turn_interrupted", "partialText", "Counting", "reason", "user pressed stop"));

        scenario.startExecutor();

        JsonNode result = scenario.awaitResult(session, AGENT, "c1");
        assertThat(result.get("status").asText()).isEqualTo("CANCELLED");
        assertThat(result.get("content").asText()).contains("the turn was interrupted").contains("before the call started");
        assertThat(scenario.ledger(session + "/" + seq + "/c1")).extracting(ToolOutcome::getState)
                .as("never STARTED").containsExactly(OutcomeState.CANCELLED);
        assertThat(scenario.workspace(session).resolve("count.txt")).as("0 executions").doesNotExist();
    }

    /**
     * The case of the issue: an assistant message asking for calls and the interruption in one append. The
     * approval-service answers each call CANCELLED and authorizes none; nothing is run, in a READ_ONLY session (read_file
     * on policy) or a WRITE one (the counting command on policy).
     */
    @Test
    @Order(2)
    void aCallAskedForInTheAppendThatInterruptsItsTurn_isAnsweredCancelled_andNeverRuns() throws Exception {
        String reader = scenario.prefix + "reader";
        String writer = scenario.prefix + "writer";
        scenario.createSession(reader, AGENT, "READ_ONLY");
        scenario.createSession(writer, AGENT, "WRITE");
        long readSeq = scenario.askForAndInterrupt(reader, AGENT, Map.of("r1", List.of("read_file", "{\"path\":\"notes.txt\"}")));
        long countSeq = scenario.askForAndInterrupt(writer, AGENT, Map.of("w1", List.of("run_command", COUNT)));
        // a later turn of the same session runs as usual: the executor is up and would have run the calls above
        long laterSeq = scenario.askFor(writer, AGENT, Map.of("w2", List.of("run_command", COUNT)));
        assertThat(scenario.awaitResult(writer, AGENT, "w2").get("status").asText()).isEqualTo("OK");

        for (var call : List.of(new String[] {reader, "r1"}, new String[] {writer, "w1"})) {
            JsonNode result = scenario.awaitResult(call[0], AGENT, call[1]);
            assertThat(result.get("status").asText()).as(call[1]).isEqualTo("CANCELLED");
            assertThat(result.get("content").asText()).as(call[1]).contains("the turn was interrupted").contains("nothing was run");
            assertThat(scenario.toolResults(call[0], AGENT, call[1])).as("one result for %s", call[1]).hasSize(1);
            assertThat(scenario.events(call[0], AGENT)).as("no authorization for %s", call[1])
                    .noneMatch(e -> e.get("type").asText().equals("tool_call_authorized") && e.get("callId").asText().equals(call[1]));
        }
        assertThat(scenario.ledger(reader + "/" + readSeq + "/r1")).as("read_file never handled").isEmpty();
        assertThat(scenario.ledger(writer + "/" + countSeq + "/w1")).as("the command never handled").isEmpty();
        assertThat(scenario.ledger(writer + "/" + laterSeq + "/w2")).extracting(ToolOutcome::getState)
                .containsExactly(OutcomeState.STARTED, OutcomeState.OK);
        assertThat(java.nio.file.Files.readAllLines(scenario.workspace(writer).resolve("count.txt")))
                .as("one execution: the later turn's, none of the interrupted one").hasSize(1);
    }

    /**
     * A session id is free again once its session is erased: the erased session's interruption at seq 5 must not cut off
     * a call the session made again under its id asks for at seq 2 (the approval-service, the sequencer and the executor
     * each forget it with the erasure).
     */
    @Test
    @Order(3)
    void anErasedSessionsInterruption_doesNotCancelTheCallsOfASessionMadeAgainUnderItsId() throws Exception {
        scenario.startExecutor(); // running through the erasure: it sees the interruption, then the tombstones
        String session = scenario.prefix + "again";
        scenario.createSession(session, AGENT, "WRITE");
        scenario.append(session, AGENT, Map.of("type", "user_message", "content", "count"));
        scenario.append(session, AGENT, Map.of("type", "user_message", "content", "no, wait"));
        scenario.append(session, AGENT, Map.of("type", "turn_interrupted", "partialText", "", "reason", "user pressed stop"));
        scenario.append(session, AGENT, Map.of("type", "user_message", "content", "forget all that"));
        scenario.erase(session, AGENT);
        scenario.createSession(session, AGENT, "WRITE");

        long seq = scenario.askFor(session, AGENT, Map.of("c1", List.of("run_command", COUNT)));

        assertThat(seq).isEqualTo(2);
        assertThat(scenario.awaitResult(session, AGENT, "c1").get("status").asText()).isEqualTo("OK");
        assertThat(java.nio.file.Files.readAllLines(scenario.workspace(session).resolve("count.txt"))).hasSize(1);
    }

    /**
     * As the first, with the executor down for longer than the part of the log it reads at start-up (here 2 s rather
     * than 15 minutes): the interruption is older than that, and is read back to the call's authorization before the
     * call would start.
     */
    @Test
    @Order(4)
    void aCallAuthorizedBeforeTheInterruption_neverStarts_evenAfterAnOutageLongerThanTheLookBack() throws Exception {
        scenario.stopExecutor();
        String session = scenario.prefix + "outage";
        scenario.createSession(session, AGENT, "WRITE");
        long seq = scenario.askFor(session, AGENT, Map.of("c1", List.of("run_command", COUNT)));
        await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(300))
                .until(() -> scenario.events(session, AGENT).stream().anyMatch(e -> e.get("type").asText().equals("tool_call_authorized")));
        scenario.append(session, AGENT, Map.of("type", "turn_interrupted", "partialText", "Counting", "reason", "user pressed stop"));
        Thread.sleep(4_000); // twice the look-back

        scenario.startExecutor("-Dtether.executor.interruptions.look-back=PT2S");

        JsonNode result = scenario.awaitResult(session, AGENT, "c1");
        assertThat(result.get("status").asText()).isEqualTo("CANCELLED");
        assertThat(scenario.ledger(session + "/" + seq + "/c1")).extracting(ToolOutcome::getState)
                .as("never STARTED").containsExactly(OutcomeState.CANCELLED);
        assertThat(scenario.workspace(session).resolve("count.txt")).as("0 executions").doesNotExist();
        assertThat(java.nio.file.Files.readString(scenario.executorLog())).contains("reading it again from offset");
    }
}
