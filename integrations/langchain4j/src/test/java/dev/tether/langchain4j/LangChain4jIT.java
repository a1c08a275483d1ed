package dev.tether.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.client.Approval;
import dev.tether.client.ApprovalDecision;
import dev.tether.client.ApprovalFilter;
import dev.tether.client.ContextFormat;
import dev.tether.client.ReadAt;
import dev.tether.client.RecoveryReport;
import dev.tether.client.RetryPolicy;
import dev.tether.client.SessionEvent;
import dev.tether.client.TetherClient;
import dev.tether.client.TetherOptions;
import dev.tether.testing.ChildJvm;
import dev.tether.testing.ServiceProcess;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * LangChain4j on the real stack (issue 19): the packaged session-service, approval-service and projector-service on the
 * real broker and registry, started once for the class.
 *
 * <p>An AI Service ({@link RefundWorker}: two {@code @Tool} methods, {@code refund_order} gated by an approver, a
 * scripted model) runs a two-turn task in processes of its own, each SIGKILLed at a point: (1) between a refund's side
 * effect and its result; (2) while a refund waits for its approval, granted while no process runs; (3) after a refund
 * started, before its effect; (4) during a model call. Each new process resumes from Tether alone. The counting refund
 * system, keyed by the idempotency key, has exactly one refund per order, and the memory, Tether's log, its model
 * context and its recovery report say the same story. The README's example runs as written.
 */
class LangChain4jIT {

    private static final Duration PATIENCE = Duration.ofMinutes(2);

    private static Path workDir;
    private static ServiceProcess sessions;
    private static ServiceProcess approvalService;
    private static ServiceProcess projector;
    private static TetherClient agent;
    private static TetherClient approver;
    private static final List<ChildJvm> workers = new ArrayList<>();

    @BeforeAll
    static void start() throws IOException {
        String prefix = "lc4j-it-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        workDir = Files.createTempDirectory("lc4j-it-");
        Path root = Path.of(System.getProperty("tether-test.root", "../..")).toAbsolutePath().normalize();
        var env = ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix, "TETHER_WORKSPACE_ROOT",
                Files.createDirectories(workDir.resolve("workspaces")).toString(), "TETHER_SESSIONS_BLOBS_DIR", workDir.resolve("blobs").toString());
        sessions = new ServiceProcess(root.resolve("session-service"), workDir.resolve("session-service"), env, List.of());
        approvalService = new ServiceProcess(root.resolve("approval-service"), workDir.resolve("approval-service"), env, List.of());
        projector = new ServiceProcess(root.resolve("projector-service"), workDir.resolve("projector-service"), env, List.of());
        sessions.launch();
        approvalService.launch();
        projector.launch();
        for (ServiceProcess p : new ServiceProcess[] {sessions, approvalService, projector}) {
            p.awaitReady(PATIENCE);
        }
        agent = TetherClient.create(options("dev-acme-agent"));
        approver = TetherClient.create(options("dev-acme-approver"));
    }

    @AfterAll
    static void stop() throws IOException {
        workers.forEach(ChildJvm::close);
        for (TetherClient c : new TetherClient[] {agent, approver}) {
            if (c != null) {
                c.close();
            }
        }
        for (ServiceProcess p : new ServiceProcess[] {projector, approvalService, sessions}) {
            if (p != null) {
                p.stop();
            }
        }
        if (workDir != null) {
            try (var paths = Files.walk(workDir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static TetherOptions options(String token) {
        return TetherOptions.of(URI.create(sessions.baseUrl()), URI.create(projector.baseUrl()), URI.create(approvalService.baseUrl()))
                .withToken(token).withTimeout(Duration.ofSeconds(30)).withRetry(RetryPolicy.of(12, Duration.ofMillis(250), Duration.ofSeconds(5)));
    }

    @Test
    void aTwoTurnTask_killedAtFourPoints_resumesFromTetherAlone_withOneRefundPerOrder() throws Exception {
        String memoryId = "refunds-" + UUID.randomUUID().toString().substring(0, 8);
        String sessionId = "lc4j-" + memoryId;
        var refunds = new RefundWorker.Refunds(Files.createDirectories(workDir.resolve("refunds-" + memoryId)));

        // (1) killed between the refund of A-17 and its result: the refund is applied, Tether knows it started, not how it ended
        ChildJvm first = worker(memoryId, refunds, "AFTER_EFFECT:A-17");
        grant(sessionId, "t1-refund-A-17");
        first.killAt("PAUSED AFTER_EFFECT:A-17", PATIENCE);
        assertThat(refunds.requests()).hasSize(1);
        long startedA = seqOf(sessionId, "tool_call_started", "t1-refund-A-17");
        RecoveryReport report = agent.recovery(sessionId, ReadAt.atLeast(startedA)).orElseThrow();
        assertThat(report.effects().harnessCall("t1-refund-A-17")).hasValueSatisfying(c -> {
            assertThat(c.outcome()).isEqualTo("UNKNOWN");
            assertThat(c.state()).isEqualTo("STARTED");
        });

        // (2) the next process reconciles A-17 by its key (it took effect), goes on, and is killed while B-9 waits for its approval
        ChildJvm second = worker(memoryId, refunds, "NONE");
        Approval itemB = awaitPending(sessionId, "t1-refund-B-9");
        second.kill();
        assertThat(second.lines()).contains("RESUMED MODEL 1");
        approver.decide(itemB.id(), ApprovalDecision.grantOnce("B-9 was returned")).decidedOrThrow(); // while no process runs
        assertThat(refunds.requests()).hasSize(1);

        // (3) the next one runs the authorized refund of B-9 and is killed after its start, before its effect
        ChildJvm third = worker(memoryId, refunds, "BEFORE_EFFECT:B-9");
        third.killAt("PAUSED BEFORE_EFFECT:B-9", PATIENCE);
        assertThat(refunds.requests()).hasSize(1);

        // (4) the next one finds B-9 had no effect (RETRY, attempt 2 under the RETRY's key), finishes turn 1, starts turn 2 and
        // is killed while the model answers it
        ChildJvm fourth = worker(memoryId, refunds, "MODEL_FINAL_2");
        fourth.killAt("PAUSED MODEL_FINAL_2", PATIENCE);
        assertThat(fourth.lines()).contains("RESUMED MODEL 1", "ANSWER Refunded A-17 and B-9.");

        // the last one goes on with the model and finishes
        ChildJvm last = worker(memoryId, refunds, "NONE");
        List<String> out = last.awaitExit(PATIENCE);
        assertThat(out).contains("RESUMED MODEL 0", "ANSWER Status: order A-17: 42.00 EUR, refunded", "DONE");

        // exactly one refund per order, each under the key of the attempt that ran it
        List<SessionEvent> log = agent.allEvents(sessionId).orElseThrow();
        long askA = seqOf(log, "assistant_message", "t1-refund-A-17");
        SessionEvent retryB = log.stream().filter(e -> e.type().equals("tool_outcome_resolved")).collect(onlyOne());
        assertThat(retryB.text("resolution")).contains("RETRY");
        String started = "~" + log.get(0).occurredAt().toEpochMilli(); // the session's start: a session made again under the id has another
        assertThat(refunds.requests()).containsExactlyInAnyOrder(sessionId + "/" + askA + "/t1-refund-A-17" + started + " A-17",
                sessionId + "/" + retryB.seq() + "/t1-refund-B-9" + started + " B-9");
        assertThat(refunds.appliedCount()).isEqualTo(2);
        assertThat(log).filteredOn(e -> e.type().equals("tool_call_started"))
                .extracting(e -> e.text("callId").orElseThrow() + "#" + e.longField("attempt").orElseThrow() + "@" + e.longField("epoch").orElseThrow())
                .containsExactly("t1-lookup-A-17#1@1", "t1-lookup-B-9#1@1", "t1-refund-A-17#1@1", "t1-refund-B-9#1@3", "t1-refund-B-9#2@4",
                        "t2-lookup-A-17#1@4");
        // one result per call; each approval granted through the approval API
        assertThat(log).filteredOn(e -> e.type().equals("tool_result")).extracting(e -> e.text("callId").orElseThrow() + " " + e.text("status").orElseThrow())
                .containsExactly("t1-lookup-A-17 OK", "t1-lookup-B-9 OK", "t1-refund-A-17 OK", "t1-refund-B-9 OK", "t2-lookup-A-17 OK");
        assertThat(log).filteredOn(e -> e.type().equals("approval_granted")).hasSize(2);
        // every message in the log once: 2 tasks and 3 "Continue.", 6 model turns
        assertThat(log).filteredOn(e -> e.type().equals("user_message")).extracting(e -> e.text("content").orElseThrow())
                .containsExactly(RefundWorker.TASKS.get(0), RefundWorker.CONTINUE, RefundWorker.CONTINUE, RefundWorker.TASKS.get(1),
                        RefundWorker.CONTINUE);
        assertThat(log).filteredOn(e -> e.type().equals("assistant_message")).hasSize(6)
                .allSatisfy(e -> assertThat(e.field("usage").orElseThrow().toString()).isEqualTo("{\"inputTokens\":100,\"outputTokens\":10}"));
        // the window evicted the oldest messages: compactions, the originals kept; each memory record as small as its change
        assertThat(log).filteredOn(e -> e.type().equals("context_compacted")).isNotEmpty();
        int added = 0;
        for (SessionEvent record : log.stream().filter(e -> e.text("kind").equals(Optional.of("memory"))).toList()) {
            JsonNode items = MessageMapping.JSON.readTree(record.text("content").orElseThrow()).path("items");
            assertThat(items.size()).isLessThanOrEqualTo(4);
            for (JsonNode item : items) {
                added += item.isObject() ? 1 : 0;
            }
        }
        assertThat(added).as("each message is added to a memory record once").isEqualTo(5 + 6 + 5);
        // the memory a fresh store reads from Tether is the one the last process had
        TetherChatMemoryStore reader = TetherChatMemoryStore.builder(agent).build();
        assertThat(out).contains("MEMORY " + RefundWorker.digest(reader.getMessages(memoryId)));
        assertThat(reader.getMessages(memoryId)).hasSizeLessThanOrEqualTo(RefundWorker.WINDOW);
        // Tether's own views: the model context from the typed events (compacted), every call confirmed in the recovery report
        long lastSeq = log.get(log.size() - 1).seq();
        String context = agent.context(sessionId, dev.tether.client.ContextQuery.of(ContextFormat.OPENAI).at(ReadAt.atLeast(lastSeq))).orElseThrow().messagesJson();
        assertThat(context).contains("Session so far", "Status: order A-17: 42.00 EUR, refunded").doesNotContain(RefundWorker.TASKS.get(0));
        RecoveryReport end = agent.recovery(sessionId, ReadAt.atLeast(lastSeq)).orElseThrow();
        for (String call : List.of("t1-lookup-A-17", "t1-lookup-B-9", "t1-refund-A-17", "t1-refund-B-9", "t2-lookup-A-17")) {
            assertThat(end.effects().harnessCall(call)).as(call).hasValueSatisfying(c -> assertThat(c.outcome()).isEqualTo("CONFIRMED"));
        }
    }

    @Test
    void theReadmeExample_runsAsWritten() throws Exception {
        String memoryId = "readme-" + UUID.randomUUID().toString().substring(0, 8);
        ChildJvm example = start(List.of("example.Quickstart"), Map.of("TETHER_SESSIONS_URL", sessions.baseUrl(), "TETHER_PROJECTOR_URL",
                projector.baseUrl(), "TETHER_APPROVALS_URL", approvalService.baseUrl(), "MEMORY_ID", memoryId));
        List<String> out = example.awaitExit(PATIENCE);

        String sessionId = "lc4j-" + memoryId;
        long ask = seqOf(sessionId, "assistant_message", "call-1");
        long started = agent.allEvents(sessionId).orElseThrow().get(0).occurredAt().toEpochMilli();
        assertThat(out).contains("looking up A-17 (key " + sessionId + "/" + ask + "/call-1~" + started + ")", "Your order A-17: shipped");
        assertThat(out).containsSubsequence("1 session_started", "2 session_claimed", "3 user_message", "4 framework_state",
                "5 assistant_message", "6 framework_state", "7 tool_call_authorized", "8 tool_call_started", "9 tool_result",
                "10 framework_state", "11 assistant_message", "12 framework_state");
        assertThat(out.get(out.size() - 1)).matches("\\d+ tokens in the model context");
    }

    @Test
    void aMessageOverTheOffloadThreshold_isStoredOnce_andReadBackWhole_fromItsArtifact() {
        String memoryId = "large-" + UUID.randomUUID().toString().substring(0, 8);
        String large = "line of a long tool output\n".repeat(3_000); // about 80 KB, over the session-service's 64 KiB
        List<dev.langchain4j.data.message.ChatMessage> messages = List.of(dev.langchain4j.data.message.UserMessage.from(large),
                dev.langchain4j.data.message.AiMessage.from("That is long."));
        TetherChatMemoryStore.builder(agent).build().updateMessages(memoryId, messages);

        List<SessionEvent> log = agent.allEvents("lc4j-" + memoryId).orElseThrow();
        assertThat(log).filteredOn(e -> e.type().equals("user_message")).singleElement()
                .satisfies(e -> assertThat(e.field("contentRef")).isPresent());
        assertThat(TetherChatMemoryStore.builder(agent).build().getMessages(memoryId)).containsExactlyElementsOf(messages);
    }

    // --- helpers ----------------------------------------------------------------------------------------------------

    private static <T> java.util.stream.Collector<T, ?, T> onlyOne() {
        return Collectors.collectingAndThen(Collectors.toList(), l -> {
            assertThat(l).hasSize(1);
            return l.get(0);
        });
    }

    private static long seqOf(String sessionId, String type, String callId) {
        return seqOf(agent.allEvents(sessionId).orElseThrow(), type, callId);
    }

    private static long seqOf(List<SessionEvent> log, String type, String callId) {
        return log.stream().filter(e -> e.type().equals(type) && (e.text("callId").equals(Optional.of(callId))
                        || e.field("toolCalls").map(c -> c.toString().contains("\"" + callId + "\"")).orElse(false)))
                .findFirst().orElseThrow(() -> new AssertionError("no " + type + " of " + callId)).seq();
    }

    private static Approval awaitPending(String sessionId, String callId) {
        return await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200))
                .until(() -> approver.approvals(ApprovalFilter.pending()).stream()
                        .filter(a -> a.sessionId().equals(sessionId) && a.callId().equals(callId)).findFirst(), Optional::isPresent)
                .orElseThrow();
    }

    private static void grant(String sessionId, String callId) {
        Approval item = awaitPending(sessionId, callId);
        assertThat(item.shown()).contains("refund_order");
        approver.decide(item.id(), ApprovalDecision.grantOnce("refund approved")).decidedOrThrow();
    }

    /** {@link RefundWorker} in a JVM of its own, on this JVM's class path. */
    private static ChildJvm worker(String memoryId, RefundWorker.Refunds refunds, String killPoint) throws IOException {
        return start(List.of(RefundWorker.class.getName(), sessions.baseUrl(), projector.baseUrl(), approvalService.baseUrl(), "dev-acme-agent",
                memoryId, refunds.dir().toString(), killPoint), Map.of());
    }

    private static ChildJvm start(List<String> mainAndArgs, Map<String, String> env) throws IOException {
        ChildJvm worker = ChildJvm.start(mainAndArgs, env);
        workers.add(worker);
        return worker;
    }
}
