package dev.tether.executor;

import static dev.tether.executor.ExecutorScenario.AGENT;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.avro.OutcomeState;
import dev.tether.avro.ToolOutcome;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.kit.kafka.Topics;
import dev.tether.testing.TetherStack;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The executor with the real broker, sequencer and projector around it.
 *
 * <p>Crash windows: the executor killed in each crash window of a call, with the real broker, sequencer and projector around it:
 * (a) after STARTED, before the effect; (b) after the effect, before the outcome; (c) after the outcome, before the
 * tool_result. Restarted, it must leave every effect done exactly once, or reported UNKNOWN and not repeated, and the
 * session with exactly one tool_result per call. Then the whole tool-requests topic is replayed from offset 0: nothing
 * runs again.
 *
 * <p>Enforcement and the sandbox end to end: a gated call without an approval and a write tool in a read-only session
 * are refused and recorded; a turn_interrupted kills a running command's whole process group; another session's call
 * runs while a long command does; secrets are redacted from what reaches the log; a path out of the workspace is refused.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExecutorIT {

    private static final String GLOBEX = "dev-globex-agent";
    private static final String PLANTED_TOKEN = "tk-planted-0123456789abcdef";
    private static final List<String> WINDOWS = List.of("after-started", "after-effect", "after-outcome");

    private ExecutorScenario scenario;

    @BeforeAll
    void start() throws Exception {
        scenario = new ExecutorScenario("xexec", "-Dtether.executor.secrets.\"api-token\"=" + PLANTED_TOKEN);
        scenario.startExecutor();
    }

    @AfterAll
    void stop() throws Exception {
        scenario.close();
    }

    @Test
    void everyCrashWindow_leavesEachEffectExactlyOnceOrUnknown_andOneResultPerCall_andAReplayRunsNothing() throws Exception {
        // the edit sessions get a file to edit first, from an executor that does not crash
        scenario.startExecutor();
        var results = new LinkedHashMap<String, JsonNode>();
        for (String window : WINDOWS) {
            String session = scenario.prefix + "edit-" + window;
            scenario.createSession(session, AGENT, "WRITE");
            call(session, "seed", "write_file", "{\"path\":\"log.txt\",\"content\":\"begin\\nEND\\n\"}");
            assertThat(scenario.awaitResult(session, AGENT, "seed").get("status").asText()).isEqualTo("OK");
            scenario.createSession(scenario.prefix + "run-" + window, AGENT, "WRITE");
        }

        for (String window : WINDOWS) {
            String edit = scenario.prefix + "edit-" + window;
            scenario.startExecutorCrashingAt(window);
            String key = call(edit, "edit", "edit_file", "{\"path\":\"log.txt\",\"old\":\"END\",\"new\":\"" + window + "\\nEND\"}");
            scenario.awaitExecutorDeath();
            assertThat(Files.readString(scenario.executorLog())).contains("test crash point " + window + " reached");
            scenario.startExecutor();
            results.put(edit, scenario.awaitResult(edit, AGENT, "edit"));
            assertThat(lastOutcome(key).getAttempt()).as("%s: the ledger counts the crashed attempt", window)
                    .isGreaterThanOrEqualTo(window.equals("after-outcome") ? 1 : 2);

            String run = scenario.prefix + "run-" + window;
            scenario.startExecutorCrashingAt(window);
            call(run, "count", "run_command", "{\"command\":\"echo once >> count.txt\"}");
            scenario.awaitExecutorDeath();
            scenario.startExecutor();
            results.put(run, scenario.awaitResult(run, AGENT, "count"));
        }

        var summary = new ArrayList<String>();
        var commandRuns = new HashMap<String, Long>();
        for (String window : WINDOWS) {
            String edit = scenario.prefix + "edit-" + window;
            long edits = Files.readAllLines(scenario.workspace(edit).resolve("log.txt")).stream().filter(window::equals).count();
            assertThat(edits).as("edit_file crashed %s: its line is in the file exactly once", window).isEqualTo(1);
            assertThat(results.get(edit).get("status").asText()).as("edit_file crashed %s", window).isEqualTo("OK");
            // reconciled as done, the result says so (the diff cannot be rebuilt: the old content is gone); otherwise it is the diff
            assertThat(results.get(edit).get("content").asText())
                    .contains(window.equals("after-effect") ? "the call completed" : "+" + window);

            String run = scenario.prefix + "run-" + window;
            var count = scenario.workspace(run).resolve("count.txt");
            long runs = Files.exists(count) ? Files.readAllLines(count).size() : 0;
            commandRuns.put(run, runs);
            String status = results.get(run).get("status").asText();
            assertThat(runs).as("run_command crashed %s: never twice", window).isLessThanOrEqualTo(1);
            if (window.equals("after-outcome")) {
                assertThat(status).as("the outcome was recorded before the crash: it is reported, not re-run").isEqualTo("OK");
                assertThat(runs).isEqualTo(1);
            } else {
                assertThat(status).as("a command cannot be proven done or not done: %s", window).isEqualTo("UNKNOWN");
                assertThat(results.get(run).get("content").asText()).contains("not run again");
                assertThat(runs).isEqualTo(window.equals("after-started") ? 0 : 1);
            }
            summary.add(String.format("%-13s edit_file: %s, applied %d time(s) | run_command: %s, ran %d time(s)", window,
                    results.get(edit).get("status").asText(), edits, status, runs));
        }

        // every call of every session has exactly one tool_result in the log
        for (String session : results.keySet()) {
            for (JsonNode event : scenario.events(session, AGENT)) {
                if (event.get("type").asText().equals("assistant_message")) {
                    for (JsonNode toolCall : event.get("toolCalls")) {
                        String callId = toolCall.get("callId").asText();
                        assertThat(scenario.toolResults(session, AGENT, callId)).as("%s %s", session, callId).hasSize(1);
                    }
                }
            }
        }

        // replay tool-requests from offset 0: everything is reported again, nothing runs again
        scenario.stopExecutor();
        int ledgerBefore = scenario.ledgerSize();
        rewindExecutorGroup();
        var replayed = scenario.startExecutor();
        String marker = scenario.prefix + "edit-after-started";
        call(marker, "after-replay", "read_file", "{\"path\":\"log.txt\"}");
        scenario.awaitResult(marker, AGENT, "after-replay"); // the replay came before it: it is done
        assertThat(scenario.ledgerSize()).as("the replay wrote no ledger entry; only the new read_file did (STARTED, OK)")
                .isEqualTo(ledgerBefore + 2);
        for (String window : WINDOWS) {
            String edit = scenario.prefix + "edit-" + window;
            assertThat(Files.readAllLines(scenario.workspace(edit).resolve("log.txt")).stream().filter(window::equals)).hasSize(1);
            assertThat(scenario.toolResults(edit, AGENT, "edit")).hasSize(1);
            String run = scenario.prefix + "run-" + window;
            var count = scenario.workspace(run).resolve("count.txt");
            assertThat(Files.exists(count) ? (long) Files.readAllLines(count).size() : 0L)
                    .as("run_command crashed %s: the replay did not run it again", window).isEqualTo(commandRuns.get(run));
        }
        // each replayed call was reported again: its result was a duplicate the sequencer ignored (one result per call above)
        assertThat(Files.readString(replayed.log()).lines().filter(l -> l.contains(" reported (attempt")).count())
                .as("re-reports by the replaying executor").isGreaterThanOrEqualTo(results.size() + WINDOWS.size());
        System.out.println("crash-window results:\n  " + String.join("\n  ", summary));
    }

    @Test
    void aGatedCallWithoutAnApproval_isRefusedAndRecorded_andRunsNothing() {
        String session = scenario.prefix + "gated";
        scenario.createSession(session, GLOBEX, "WRITE");
        long seq = scenario.askFor(session, GLOBEX, Map.of("g1", List.of("write_file", "{\"path\":\"x.txt\",\"content\":\"x\"}")));
        scenario.authorize(session, "globex", "g1", AuthorizationBasis.POLICY); // globex gates write_file: policy is not enough

        JsonNode result = scenario.awaitResult(session, GLOBEX, "g1");
        assertThat(result.get("status").asText()).isEqualTo("ERROR");
        assertThat(result.get("content").asText()).contains("'write_file' needs a human's approval");
        assertThat(scenario.ledger(session + "/" + seq + "/g1")).extracting(ToolOutcome::getState).containsExactly(OutcomeState.ERROR);
        assertThat(scenario.workspace(session).resolve("x.txt")).doesNotExist();
    }

    @Test
    void aReadOnlySession_cannotWrite_whatever_theModelAsks() {
        String session = scenario.prefix + "readonly";
        scenario.createSession(session, AGENT, "READ_ONLY");
        long seq = scenario.askFor(session, AGENT, Map.of("w1", List.of("write_file", "{\"path\":\"x.txt\",\"content\":\"x\"}")));
        scenario.authorize(session, "acme", "w1", AuthorizationBasis.POLICY);

        JsonNode result = scenario.awaitResult(session, AGENT, "w1");
        assertThat(result.get("status").asText()).isEqualTo("ERROR");
        assertThat(result.get("content").asText()).contains("'write_file' is not available to READ_ONLY sessions");
        assertThat(scenario.ledger(session + "/" + seq + "/w1")).extracting(ToolOutcome::getState).containsExactly(OutcomeState.ERROR);
        assertThat(scenario.workspace(session).resolve("x.txt")).doesNotExist();
    }

    @Test
    void aTurnInterrupted_cancelsTheRunningCommand_andKillsItsWholeProcessGroup() throws Exception {
        String session = scenario.prefix + "interrupted";
        scenario.createSession(session, AGENT, "WRITE");
        // a grandchild that would write late.txt after 3 s, and a parent that would run for a minute
        String key = call(session, "slow", "run_command", "{\"command\":\"(sleep 3; echo late > late.txt) & sleep 60\"}");
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofMinutes(1))
                .until(() -> scenario.ledger(key).stream().anyMatch(o -> o.getState() == OutcomeState.STARTED));
        scenario.append(session, AGENT, Map.of("type", "turn_interrupted", "partialText", "Running the slow", "reason", "user pressed stop"));

        JsonNode result = scenario.awaitResult(session, AGENT, "slow");
        assertThat(result.get("status").asText()).isEqualTo("CANCELLED");
        Thread.sleep(5_000); // past the grandchild's 3 s
        assertThat(scenario.workspace(session).resolve("late.txt")).as("the grandchild was killed with the group").doesNotExist();
        assertThat(scenario.ledger(key)).extracting(ToolOutcome::getState).containsExactly(OutcomeState.STARTED, OutcomeState.CANCELLED);
    }

    /**
     * Another session's call is read and run while a long command runs, with the real broker's group, commits and
     * ledger: once a poll's calls ran as one batch and nothing more was read until all ended, so session B's call waited
     * for session A's command.
     */
    @Test
    void anotherSessionsCall_runsAndIsReported_whileALongCommandRuns() {
        String longRunning = scenario.prefix + "long-a";
        String other = scenario.prefix + "long-b";
        scenario.createSession(longRunning, AGENT, "WRITE");
        scenario.createSession(other, AGENT, "WRITE");
        String slow = call(longRunning, "slow", "run_command", "{\"command\":\"sleep 20; echo done\"}");
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofMinutes(1))
                .until(() -> scenario.ledger(slow).stream().anyMatch(o -> o.getState() == OutcomeState.STARTED));

        long asked = System.nanoTime();
        String quick = call(other, "quick", "write_file", "{\"path\":\"b.txt\",\"content\":\"b\"}");
        assertThat(scenario.awaitResult(other, AGENT, "quick").get("status").asText()).isEqualTo("OK");
        assertThat(java.time.Duration.ofNanos(System.nanoTime() - asked)).as("not held until the command's 20 s end")
                .isLessThan(java.time.Duration.ofSeconds(15));
        assertThat(scenario.ledger(slow)).extracting(ToolOutcome::getState).as("the command still runs").containsExactly(OutcomeState.STARTED);

        assertThat(scenario.awaitResult(longRunning, AGENT, "slow").get("content").asText()).contains("done");
        assertThat(scenario.ledger(slow)).extracting(ToolOutcome::getState).containsExactly(OutcomeState.STARTED, OutcomeState.OK);
        assertThat(scenario.ledger(quick)).extracting(ToolOutcome::getState).containsExactly(OutcomeState.STARTED, OutcomeState.OK);
        assertThat(scenario.workspace(other).resolve("b.txt")).hasContent("b");
    }

    @Test
    void anErasure_cancelsItsSessionsRunningCommand_startsNoneOfItsQueuedCalls_andLeavesNoOutputInTheLedger() throws Exception {
        String session = scenario.prefix + "erased-running";
        scenario.createSession(session, AGENT, "WRITE");
        long seq = scenario.askFor(session, AGENT, Map.of("slow", List.of("run_command", "{\"command\":\"echo working; sleep 60\"}"),
                "queued", List.of("write_file", "{\"path\":\"queued.txt\",\"content\":\"after the erasure\"}")));
        scenario.authorize(session, "acme", "slow", AuthorizationBasis.POLICY);
        scenario.authorize(session, "acme", "queued", AuthorizationBasis.POLICY);
        String slow = session + "/" + seq + "/slow";
        String queued = session + "/" + seq + "/queued";
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofMinutes(1))
                .until(() -> scenario.ledger(slow).stream().anyMatch(o -> o.getState() == OutcomeState.STARTED));

        long erasing = System.nanoTime();
        scenario.erase(session, AGENT);

        // the running command ends CANCELLED at once (not after its minute); the queued call never starts; then each
        // record is written again without its output
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(40))
                .until(() -> scenario.ledger(slow).size() == 3 && scenario.ledger(queued).size() == 2);
        assertThat(java.time.Duration.ofNanos(System.nanoTime() - erasing)).isLessThan(java.time.Duration.ofSeconds(40));
        assertThat(scenario.ledger(slow)).extracting(ToolOutcome::getState)
                .containsExactly(OutcomeState.STARTED, OutcomeState.CANCELLED, OutcomeState.CANCELLED);
        assertThat(scenario.ledger(queued)).extracting(ToolOutcome::getState).containsExactly(OutcomeState.CANCELLED, OutcomeState.CANCELLED);
        assertThat(scenario.ledger(queued).get(0).getContent()).contains("the session was erased");
        for (String key : List.of(slow, queued)) {
            ToolOutcome last = scenario.ledger(key).get(scenario.ledger(key).size() - 1);
            assertThat(last.getErasedAt()).as(key).isNotNull();
            assertThat(last.getContent()).as(key).isNull();
        }
        assertThat(scenario.workspace(session)).as("not made again by the queued call").doesNotExist();
        assertThat(Files.readString(scenario.executorLog())).contains(slow + ": run_command CANCELLED not reported: its session was erased")
                .contains(queued + ": its session was erased at");
    }

    @Test
    void secrets_resolvedOnlyInTheExecutor_neverReachTheLog() {
        String session = scenario.prefix + "secrets";
        scenario.createSession(session, AGENT, "WRITE");
        call(session, "s1", "run_command", "{\"command\":\"echo token=secret://api-token; echo api_key=sk-live-abcdefghijklmnop1234\"}");

        JsonNode result = scenario.awaitResult(session, AGENT, "s1");
        assertThat(result.get("status").asText()).isEqualTo("OK");
        String content = result.get("content").asText();
        assertThat(content).doesNotContain(PLANTED_TOKEN).doesNotContain("sk-live-abcdefghijklmnop1234").contains("REDACTED");
        assertThat(scenario.events(session, AGENT).toString()).doesNotContain(PLANTED_TOKEN);
        List<String> ledger = scenario.ledgerText();
        assertThat(ledger).as("the call's ledger entries were written").anyMatch(text -> text.contains(session + "/"));
        assertThat(ledger).noneMatch(text -> text.contains(PLANTED_TOKEN) || text.contains("sk-live-abcdefghijklmnop1234"));
    }

    @Test
    void aPathOutOfTheWorkspace_isRefused() {
        String session = scenario.prefix + "escape";
        scenario.createSession(session, AGENT, "WRITE");
        call(session, "e1", "read_file", "{\"path\":\"../../../etc/passwd\"}");

        JsonNode result = scenario.awaitResult(session, AGENT, "e1");
        assertThat(result.get("status").asText()).isEqualTo("ERROR");
        assertThat(result.get("content").asText()).contains("path").doesNotContain("root:x:0:0");
    }

    @Test
    void aSessionMadeAgainUnderAnErasedSessionsId_hasItsCallsRun_neverTheErasedOnesOutcomesReportedAgain() throws Exception {
        String session = scenario.prefix + "again";
        Files.createDirectories(scenario.workspace(session));
        Files.writeString(scenario.workspace(session).resolve("a.txt"), "what the erased session read");
        scenario.createSession(session, AGENT, "READ_ONLY");
        String key = call(session, "r1", "read_file", "{\"path\":\"a.txt\"}");
        assertThat(scenario.awaitResult(session, AGENT, "r1").get("content").asText()).contains("what the erased session read");

        scenario.erase(session, AGENT);
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
                .until(() -> !Files.exists(scenario.workspace(session))); // the workspace goes with its session
        // and the ledger's record of the call no longer holds what it read: compaction removes the one that did
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() -> scenario.ledger(key).size() == 3);
        ToolOutcome erased = scenario.ledger(key).get(2);
        assertThat(erased.getState()).isEqualTo(OutcomeState.OK);
        assertThat(erased.getErasedAt()).isNotNull();
        assertThat(erased.getContent()).isNull();
        assertThat(scenario.ledger(key).get(1).getContent()).contains("what the erased session read");
        Files.createDirectories(scenario.workspace(session));
        Files.writeString(scenario.workspace(session).resolve("b.txt"), "what the new session reads");
        scenario.createSession(session, AGENT, "READ_ONLY");
        assertThat(call(session, "r1", "read_file", "{\"path\":\"b.txt\"}")).as("the same seq and callId: the same key").isEqualTo(key);

        JsonNode result = scenario.awaitResult(session, AGENT, "r1");
        assertThat(result.get("status").asText()).isEqualTo("OK");
        assertThat(result.get("content").asText()).contains("what the new session reads").doesNotContain("erased");
        List<ToolOutcome> ledger = scenario.ledger(key);
        assertThat(ledger).extracting(ToolOutcome::getState)
                .containsExactly(OutcomeState.STARTED, OutcomeState.OK, OutcomeState.OK, OutcomeState.STARTED, OutcomeState.OK);
        assertThat(ledger.get(0).getRequestedAt()).isEqualTo(ledger.get(1).getRequestedAt()).isEqualTo(ledger.get(2).getRequestedAt())
                .isBefore(ledger.get(3).getRequestedAt());
        // the key each session's tool was handed: the key, '~' and the session's start, which the later session does not repeat
        String erasedSessions = ledger.get(0).getExternalKey();
        String newSessions = ledger.get(3).getExternalKey();
        assertThat(erasedSessions).startsWith(key + "~").isEqualTo(ledger.get(1).getExternalKey());
        assertThat(newSessions).startsWith(key + "~").isEqualTo(ledger.get(4).getExternalKey());
        assertThat(Long.parseLong(newSessions.substring(key.length() + 1)))
                .as("the later session started later").isGreaterThan(Long.parseLong(erasedSessions.substring(key.length() + 1)));
        assertThat(Files.readString(scenario.executorLog())).contains(key + ": the ledger's OK is of an earlier session under the id");

        // tool-requests replayed from offset 0: the erased session's request comes again, after the new session's call
        scenario.stopExecutor();
        int ledgerBefore = scenario.ledgerSize();
        rewindExecutorGroup();
        scenario.startExecutor();
        call(session, "after-replay", "read_file", "{\"path\":\"b.txt\"}");
        scenario.awaitResult(session, AGENT, "after-replay"); // the replay came before it: it is done
        assertThat(scenario.ledgerSize()).as("the replay wrote no ledger entry; only the new read_file did (STARTED, OK)")
                .isEqualTo(ledgerBefore + 2);
        assertThat(scenario.toolResults(session, AGENT, "r1")).hasSize(1);
        assertThat(Files.readString(scenario.executorLog())).contains(key + " (authorized at " + ledger.get(0).getRequestedAt()
                + ") is of a session erased since");
    }

    @Test
    void anErasedSessionsWorkspace_goesWithIt_andAnotherTenantsSessionUnderItsId_seesNothingOfIt_norLosesItsOwnToTheErasureReadAgain() throws Exception {
        String session = scenario.prefix + "erased-files";
        scenario.createSession(session, AGENT, "WRITE");
        call(session, "w1", "write_file", "{\"path\":\"private.txt\",\"content\":\"acme's private words\"}");
        assertThat(scenario.awaitResult(session, AGENT, "w1").get("status").asText()).isEqualTo("OK");
        assertThat(scenario.workspace(session).resolve("private.txt")).hasContent("acme's private words");

        scenario.erase(session, AGENT);
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
                .until(() -> !Files.exists(scenario.workspace(session)));
        scenario.createSession(session, GLOBEX, "READ_ONLY");
        long seq = scenario.askFor(session, GLOBEX, Map.of("r1", List.of("read_file", "{\"path\":\"private.txt\"}"),
                "l1", List.of("list_dir", "{\"path\":\".\"}")));
        scenario.authorize(session, "globex", "r1", AuthorizationBasis.POLICY);
        scenario.authorize(session, "globex", "l1", AuthorizationBasis.POLICY);

        JsonNode read = scenario.awaitResult(session, GLOBEX, "r1");
        assertThat(read.get("status").asText()).isEqualTo("ERROR");
        assertThat(read.get("content").asText()).doesNotContain("acme's private words");
        assertThat(scenario.awaitResult(session, GLOBEX, "l1").get("content").asText()).doesNotContain("private.txt");
        assertThat(seq).isEqualTo(2);

        // a restarted executor reads the last minutes of the log again, the erasure among them: the workspace of the
        // session made under the id since stays
        Files.writeString(scenario.workspace(session).resolve("globex.txt"), "globex's own words");
        scenario.startExecutor();
        scenario.askFor(session, GLOBEX, Map.of("l2", List.of("list_dir", "{\"path\":\".\"}")));
        scenario.authorize(session, "globex", "l2", AuthorizationBasis.POLICY);
        assertThat(scenario.awaitResult(session, GLOBEX, "l2").get("content").asText()).contains("globex.txt");
        assertThat(scenario.workspace(session).resolve("globex.txt")).hasContent("globex's own words");
    }

    /** Asks for one call and authorizes it on policy; returns its idempotency key. */
    private String call(String session, String callId, String tool, String argumentsJson) {
        long seq = scenario.askFor(session, AGENT, Map.of(callId, List.of(tool, argumentsJson)));
        scenario.authorize(session, "acme", callId, AuthorizationBasis.POLICY);
        return session + "/" + seq + "/" + callId;
    }

    private ToolOutcome lastOutcome(String key) {
        List<ToolOutcome> written = scenario.ledger(key);
        assertThat(written).as("ledger of %s", key).isNotEmpty();
        ToolOutcome last = written.get(written.size() - 1);
        assertThat(last.getState()).isNotEqualTo(OutcomeState.STARTED);
        return last;
    }

    private void rewindExecutorGroup() throws Exception {
        String topic = scenario.layout.name(Topics.TOOL_REQUESTS);
        try (Admin admin = Admin.create(TetherStack.shared().clientConfig())) {
            var offsets = new java.util.HashMap<TopicPartition, OffsetAndMetadata>();
            int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
            for (int p = 0; p < partitions; p++) {
                offsets.put(new TopicPartition(topic, p), new OffsetAndMetadata(0));
            }
            // a static member stays in the group for its session timeout after it stops: retry until it is gone
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofMinutes(1)).pollInterval(java.time.Duration.ofSeconds(1))
                    .ignoreExceptions()
                    .until(() -> {
                        admin.alterConsumerGroupOffsets(scenario.prefix + "tether-tool-executor", offsets).all().get();
                        return true;
                    });
        }
    }
}
