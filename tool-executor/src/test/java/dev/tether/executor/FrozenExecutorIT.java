package dev.tether.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.tether.avro.ToolOutcome;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.kit.kafka.Topics;
import dev.tether.testing.ProcessControl;
import dev.tether.testing.ServiceProcess;
import dev.tether.testing.TetherStack;
import dev.tether.testing.TopicReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An executor that does not know it lost its partition (docs/ARCHITECTURE.md §6), on the real stack: executor A, alone in
 * its group, takes a {@code run_command} call, passes every check of its own (its claim on the partition too) and freezes
 * right before writing the call's STARTED (SIGSTOP of its whole JVM, heartbeats included, as a long GC pause or a stopped
 * VM). Executor B joins; A is expelled at its session timeout, B takes the partition over and runs the call. Then A is
 * continued: its worker goes straight on to the write, its consumer not told yet. The group coordinator refuses the
 * write's transactional offset commit (KIP-447), the STARTED is aborted, and A runs nothing: the command ran once.
 * Without the fence A wrote STARTED and ran the command a second time.
 *
 * <p>Frozen a step later, after its STARTED is committed, A's call is B's to reconcile: B finds the file as it was and
 * makes the edit. Continued, A goes on to the same edit, which a file tool makes only to the content its STARTED
 * recorded: A finds the content the call writes and writes nothing. Without that, A applied the edit a second time.
 */
class FrozenExecutorIT {

    private ExecutorScenario scenario;
    private ServiceProcess frozen;

    @AfterEach
    void stop() throws IOException {
        if (frozen != null) {
            ProcessControl.signal(frozen.pid(), "CONT"); // a stopped process cannot stop
        }
        if (scenario != null) {
            scenario.close();
        }
    }

    @Test
    void anExecutorFrozenPastItsSessionTimeout_beforeItsStarted_isRefusedByTheCoordinator_andTheCallRunsOnce() throws Exception {
        scenario = new ExecutorScenario("xfrozen");
        String session = scenario.prefix + "count";
        scenario.createSession(session, ExecutorScenario.AGENT, "WRITE");
        String key = freezeExecutorAt("before-started", session, "count", "run_command",
                "{\"command\":\"echo once >> count.txt\"}");

        // B joins; the group waits for A, which does not answer: expelled at its session timeout, its partitions go to B
        var taker = scenario.startExecutorBeside("executor-b");
        assertThat(scenario.awaitResult(session, ExecutorScenario.AGENT, "count").get("status").asText()).isEqualTo("OK");
        Path count = scenario.workspace(session).resolve("count.txt");
        assertThat(Files.readAllLines(count)).as("B ran the call").hasSize(1);

        continueFrozen();
        awaitInLog(frozen, "refused its first ledger write", key + ": run_command OK reported");
        String log = log(frozen);
        assertThat(log).as("A went on from its freeze point and was refused")
                .contains("test freeze point before-started: continued")
                .contains(key + ": the group coordinator refused its first ledger write")
                .contains("not started, left to the partition's next owner");
        // A may take the partition back once it has joined again, and then only report B's outcome again: what it ran shows
        // in the file and the ledger
        Thread.sleep(2_000);
        assertThat(Files.readAllLines(count)).as("the command ran once, by B").hasSize(1);
        assertThat(scenario.toolResults(session, ExecutorScenario.AGENT, "count")).hasSize(1);
        List<ToolOutcome> ledger = scenario.ledger(key);
        assertThat(ledger).as("the committed ledger holds B's STARTED and OK; A's STARTED was aborted")
                .extracting(o -> o.getState().name(), o -> o.getExecutorId().toString())
                .containsExactly(tuple("STARTED", scenario.prefix + "executor-b"),
                        tuple("OK", scenario.prefix + "executor-b"));
        assertThat(log(taker)).contains(key + ": run_command OK reported");

        // the fenced writes' offset commits (each its batch's start) never undo a batch's own commit past it
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(requestsNotCommittedPast()).isEmpty());
    }

    @Test
    void anExecutorFrozenAfterItsStarted_findsTheEditTheNewOwnerMade_andWritesNothing() throws Exception {
        scenario = new ExecutorScenario("xfrozenedit");
        String session = scenario.prefix + "edit";
        scenario.createSession(session, ExecutorScenario.AGENT, "WRITE");
        Path log = scenario.workspace(session).resolve("log.txt");
        Files.createDirectories(log.getParent());
        Files.writeString(log, "a\n");
        // "a" occurs once again after the edit: applied to what B left, it would make "abb"
        String key = freezeExecutorAt("after-started", session, "edit", "edit_file",
                "{\"path\":\"log.txt\",\"old\":\"a\",\"new\":\"ab\"}");

        // A's STARTED is committed, its edit not made; B takes the partition over, finds the file as it was and edits it
        var taker = scenario.startExecutorBeside("executor-b");
        assertThat(scenario.awaitResult(session, ExecutorScenario.AGENT, "edit").get("status").asText()).isEqualTo("OK");
        assertThat(log).as("B made the edit").hasContent("ab\n");
        assertThat(log(taker)).contains(key + " was STARTED by " + scenario.prefix + "executor and never ended; reconciled: NotApplied");

        // A goes on to its edit, from a lookup made before it froze, and finds the content the call writes
        continueFrozen();
        awaitInLog(frozen, key + ": edit_file OK reported");
        assertThat(log).as("the edit made once").hasContent("ab\n");
        assertThat(scenario.toolResults(session, ExecutorScenario.AGENT, "edit")).hasSize(1);
        List<ToolOutcome> ledger = scenario.ledger(key);
        assertThat(ledger).extracting(o -> o.getState().name(), o -> o.getExecutorId().toString())
                .containsExactly(tuple("STARTED", scenario.prefix + "executor"),
                        tuple("STARTED", scenario.prefix + "executor-b"),
                        tuple("OK", scenario.prefix + "executor-b"),
                        tuple("OK", scenario.prefix + "executor"));
        // A ran second (it stayed stopped until B had reported): B made the edit, A found it made
        assertThat(ledger.subList(2, 4)).extracting(o -> o.getContent().toString()).as("B's and A's outputs")
                .satisfiesExactly(
                        b -> assertThat(b).startsWith("--- a/log.txt"),
                        a -> assertThat(a).startsWith("edit_file: log.txt already has the content this call writes"));
    }

    /**
     * Starts executor A to freeze at {@code point}, asks for the call in the session, authorized, and waits until A froze
     * there with it.
     *
     * @return the call's idempotency key
     */
    private String freezeExecutorAt(String point, String session, String callId, String tool, String arguments) {
        frozen = scenario.startExecutor("-Dtether.executor.test.freeze-at=" + point,
                "-Dtether.executor.test.crash-marker=" + scenario.workDir.resolve("frozen-" + point));
        long seq = scenario.askFor(session, ExecutorScenario.AGENT, Map.of(callId, List.of(tool, arguments)));
        scenario.authorize(session, "acme", callId, AuthorizationBasis.POLICY);
        awaitInLog(frozen, "test freeze point " + point + " reached");
        return session + "/" + seq + "/" + callId;
    }

    /** Continues A (SIGCONT), having checked that it was still stopped at its freeze point, as the test needs it. */
    private void continueFrozen() throws IOException {
        assertThat(log(frozen)).as("A stayed stopped at its freeze point until continued").doesNotContain(": continued");
        assertThat(ProcessControl.signal(frozen.pid(), "CONT")).isTrue();
    }

    /** The requests of tool-requests at or past their partition's committed offset, as partition@offset. */
    private List<String> requestsNotCommittedPast() throws Exception {
        try (Admin admin = Admin.create(TetherStack.shared().clientConfig())) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(scenario.prefix + "tether-tool-executor")
                    .partitionsToOffsetAndMetadata().get();
            return TopicReader.readAll(scenario.layout.name(Topics.TOOL_REQUESTS)).stream()
                    .filter(r -> {
                        OffsetAndMetadata at = committed.get(new TopicPartition(r.topic(), r.partition()));
                        return at == null || at.offset() <= r.offset();
                    })
                    .map(r -> r.partition() + "@" + r.offset()).toList();
        }
    }

    /**
     * Waits up to two minutes for {@code process}'s log to hold one of {@code any}; failing, says how the log ends (the
     * test's directory, the log with it, is deleted).
     */
    private static void awaitInLog(ServiceProcess process, String... any) {
        try {
            await().atMost(Duration.ofMinutes(2))
                    .until(() -> Stream.of(any).anyMatch(log(process)::contains));
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("none of " + List.of(any) + " in the log of pid " + process.pid() + " within 2 minutes; it ends:\n"
                    + process.logTail(60), e);
        }
    }

    private static String log(ServiceProcess process) throws IOException {
        return Files.readString(process.log());
    }
}
