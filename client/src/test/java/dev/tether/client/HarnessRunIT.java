package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.testing.ChildJvm;
import dev.tether.testing.ServiceProcess;
import dev.tether.testing.TopicReader;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Harness-run tools on the real stack (issue 16; docs/ARCHITECTURE.md §6, "Harness-run tools"): the packaged
 * session-service, approval-service and projector-service on the real broker and registry, started once for the class.
 *
 * <p>A harness process ({@link PaymentWorker}, its own JVM, using {@link HarnessToolRunner}) is SIGKILLed at a
 * deterministic point — it prints {@code PAUSED <point>} and blocks there — (a) after the call's authorization, before
 * its start; (b) after the start, before the side effect; (c) after the side effect, before the result. A fresh worker
 * process resumes each; the counting external system ({@link PaymentWorker.Payments}, keyed by the idempotency key)
 * sees exactly one payment, and (b) and (c) are UNKNOWN in the recovery report until the fresh worker reconciles them.
 * In this JVM: a gated harness tool waits for an approver's grant through the approval API, is denied, is cancelled by
 * an interruption; a stale worker's start and result are fenced once another worker claimed the session.
 */
class HarnessRunIT {

    private static final Duration PATIENCE = Duration.ofMinutes(2);

    private static String prefix;
    private static Path workDir;
    private static ServiceProcess sessions;
    private static ServiceProcess approvalService;
    private static ServiceProcess projector;
    private static TetherClient agent;
    private static TetherClient approver;
    private static final List<ChildJvm> workers = new ArrayList<>();
    private static final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeAll
    static void start() throws IOException {
        prefix = "client-harness-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        workDir = Files.createTempDirectory("client-harness-it-");
        var env = ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix, "TETHER_WORKSPACE_ROOT",
                Files.createDirectories(workDir.resolve("workspaces")).toString(), "TETHER_SESSIONS_BLOBS_DIR", workDir.resolve("blobs").toString());
        sessions = new ServiceProcess(Path.of("../session-service").toAbsolutePath(), workDir.resolve("session-service"), env, List.of());
        approvalService = new ServiceProcess(Path.of("../approval-service").toAbsolutePath(), workDir.resolve("approval-service"), env,
                List.of());
        projector = new ServiceProcess(Path.of("../projector-service").toAbsolutePath(), workDir.resolve("projector-service"), env, List.of());
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
        threads.shutdownNow();
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

    // --- SIGKILL at each point, resumed by a fresh worker process ---------------------------------------------------

    @Test
    void killedAfterAuthorization_beforeTheStart_theFreshWorkerRunsItOnce() throws Exception {
        Killed killed = killAt("after-auth", "AFTER_AUTHORIZED");
        assertThat(killed.events()).noneMatch(e -> e.type().equals("tool_call_started"));
        RecoveryReport report = agent.recovery(killed.sessionId(), ReadAt.atLeast(killed.lastSeq())).orElseThrow();
        assertThat(report.effects().harnessCall(PaymentWorker.CALL)).hasValueSatisfying(c -> assertThat(c.outcome()).isEqualTo("NOT_STARTED"));
        assertThat(killed.payments().requests()).isEmpty();

        List<String> out = freshWorker(killed);
        assertThat(out).anyMatch(l -> l.startsWith("RESUMED ToolCompleted OK RAN " + killed.sessionId() + "/"));
        assertThat(out).anyMatch(l -> l.startsWith("RESULT ToolCompleted OK REPORTED_BEFORE"));
        assertExactlyOnePayment(killed, 1, 2);
    }

    @Test
    void killedAfterTheStart_beforeTheEffect_isUnknownUntilReconciled_asNoEffect_thenRunOnce() throws Exception {
        Killed killed = killAt("before-effect", "BEFORE_EFFECT");
        long startSeq = seqOf(killed.events(), "tool_call_started");
        assertUnknownInTheReport(killed, startSeq, 1);
        assertThat(killed.payments().requests()).isEmpty();

        List<String> out = freshWorker(killed);
        // the hook found no payment under the first key: RETRY in the worker's name, attempt 2 under the RETRY's key
        List<SessionEvent> events = agent.allEvents(killed.sessionId()).orElseThrow();
        SessionEvent retry = events.stream().filter(e -> e.type().equals("tool_outcome_resolved")).findFirst().orElseThrow();
        assertThat(retry.text("resolution")).contains("RETRY");
        assertThat(retry.text("approver")).contains("acme-agent");
        String secondKey = killed.sessionId() + "/" + retry.seq() + "/" + PaymentWorker.CALL;
        assertThat(out).anyMatch(l -> l.equals("RESUMED ToolCompleted OK RAN " + secondKey));
        assertThat(events.stream().filter(e -> e.type().equals("tool_call_started")).map(e -> e.longField("attempt").orElse(0)))
                .containsExactly(1L, 2L);
        assertThat(killed.payments().requests()).as("under the key the tool was handed: the log key and the session's start")
                .containsExactly(handed(killed, secondKey));
        assertThat(events.stream().filter(e -> e.type().equals("tool_call_started")).map(e -> e.text("externalKey").orElse("")))
                .containsExactly(handed(killed, killed.sessionId() + "/" + killed.requestSeq() + "/" + PaymentWorker.CALL),
                        handed(killed, secondKey));
        assertExactlyOnePayment(killed, 2, 2);
    }

    @Test
    void killedAfterTheEffect_beforeTheResult_isUnknownUntilReconciled_asDone_neverRunAgain() throws Exception {
        Killed killed = killAt("after-effect", "AFTER_EFFECT");
        long startSeq = seqOf(killed.events(), "tool_call_started");
        assertUnknownInTheReport(killed, startSeq, 1);
        String firstKey = killed.sessionId() + "/" + killed.requestSeq() + "/" + PaymentWorker.CALL;
        assertThat(killed.payments().requests()).containsExactly(handed(killed, firstKey));

        List<String> out = freshWorker(killed);
        assertThat(out).anyMatch(l -> l.equals("RESUMED ToolCompleted OK RECONCILED " + firstKey));
        SessionEvent result = agent.allEvents(killed.sessionId()).orElseThrow().stream().filter(e -> e.type().equals("tool_result"))
                .findFirst().orElseThrow();
        assertThat(result.text("content").orElseThrow()).contains("found by reconciliation");
        assertThat(killed.payments().requests()).as("looked up by the key its start recorded, not paid again")
                .containsExactly(handed(killed, firstKey));
        assertExactlyOnePayment(killed, 1, 1);
    }

    /** The key a tool of {@code killed}'s session is handed for the call of {@code key}: with the session's start (seq 1's occurredAt). */
    private static String handed(Killed killed, String key) {
        return key + "~" + killed.events().get(0).occurredAt().toEpochMilli();
    }

    private record Killed(String sessionId, long requestSeq, long lastSeq, List<SessionEvent> events, PaymentWorker.Payments payments) {}

    /** A session declaring record_payment; a worker process that asks for the call, the approver's grant, and its SIGKILL at {@code point}. */
    private static Killed killAt(String name, String point) throws Exception {
        String id = name + "-" + UUID.randomUUID().toString().substring(0, 8);
        agent.createSession(NewSession.of("Record the payment", "claude-sonnet-4", ToolMode.WRITE).withSessionId(id)
                .withHarnessTools(List.of(PaymentWorker.declaration()))).createdOrThrow();
        var payments = new PaymentWorker.Payments(Files.createDirectories(workDir.resolve("payments-" + id)));
        ChildJvm worker = worker(id, "worker-1", payments, point);
        // record_payment is mutating, so an approver decides (tether.policy.harness-gated=mutating by default)
        Approval item = awaitPending(id, PaymentWorker.CALL);
        assertThat(item.shown()).contains(PaymentWorker.TOOL, "\"amount\":42");
        approver.decide(item.id(), ApprovalDecision.grantOnce("the invoice is due")).decidedOrThrow();
        worker.killAt("PAUSED " + point, PATIENCE); // SIGKILL, at exactly that point
        List<SessionEvent> events = agent.allEvents(id).orElseThrow();
        long requestSeq = seqOf(events, "assistant_message");
        return new Killed(id, requestSeq, events.get(events.size() - 1).seq(), events, payments);
    }

    private static void assertUnknownInTheReport(Killed killed, long startSeq, int attempt) {
        RecoveryReport report = agent.recovery(killed.sessionId(), ReadAt.atLeast(startSeq)).orElseThrow();
        assertThat(report.effects().harnessCall(PaymentWorker.CALL)).hasValueSatisfying(c -> {
            assertThat(c.outcome()).isEqualTo("UNKNOWN");
            assertThat(c.state()).isEqualTo("STARTED");
            assertThat(c.attempt()).isEqualTo(attempt);
            assertThat(c.startedEpoch()).hasValue(1);
            assertThat(c.exactlyOnce()).isTrue();
        });
        assertThat(report.effects().unknown()).extracting(RecoveryReport.Call::callId).contains(PaymentWorker.CALL);
        assertThat(report.nextSafeActions()).anyMatch(a -> a.contains(PaymentWorker.CALL) && a.contains("do not run it again"));
    }

    /** A fresh worker process (no kill point) resumes the session; its output once it exited 0. */
    private static List<String> freshWorker(Killed killed) throws Exception {
        List<String> out = worker(killed.sessionId(), "worker-2", killed.payments(), "NONE").awaitExit(PATIENCE);
        assertThat(out).contains("CLAIMED epoch 2");
        return out;
    }

    private static void assertExactlyOnePayment(Killed killed, int attempts, long epoch) throws Exception {
        assertThat(killed.payments().requests()).hasSize(1);
        assertThat(killed.payments().appliedCount()).isEqualTo(1);
        List<SessionEvent> events = agent.allEvents(killed.sessionId()).orElseThrow();
        assertThat(events.stream().filter(e -> e.type().equals("tool_result"))).singleElement()
                .satisfies(e -> assertThat(e.text("status")).contains("OK"));
        assertThat(events.stream().filter(e -> e.type().equals("assistant_message"))).hasSize(1); // the turn re-sent is a duplicate
        RecoveryReport report = agent.recovery(killed.sessionId(), ReadAt.atLeast(events.get(events.size() - 1).seq())).orElseThrow();
        assertThat(report.effects().harnessCall(PaymentWorker.CALL)).hasValueSatisfying(c -> {
            assertThat(c.outcome()).isEqualTo("CONFIRMED");
            assertThat(c.attempt()).isEqualTo(attempts);
            assertThat(c.startedEpoch()).hasValue(epoch);
        });
    }

    // --- in this JVM: approvals, interruption, fencing ---------------------------------------------------------------

    @Test
    void aGatedHarnessTool_waitsForTheApproversGrant_isDeniedOnADenial_andCancelledByAnInterruption() throws Exception {
        String id = "gated-" + UUID.randomUUID().toString().substring(0, 8);
        HarnessTool deploy = HarnessTool.mutating("deploy");
        agent.createSession(NewSession.of("Deploy", "claude-sonnet-4", ToolMode.WRITE).withSessionId(id).withHarnessTools(List.of(deploy)))
                .createdOrThrow();
        Claimed claimed = agent.claim(id, ClaimRequest.of("worker-g", "v1")).claimedOrThrow();
        var ran = new AtomicInteger();
        HarnessToolRunner runner = HarnessToolRunner.builder(agent, claimed)
                .tool(deploy, call -> ToolOutput.ok("deployed " + call.argumentsJson() + " #" + ran.incrementAndGet())).build();
        SessionWriter writer = agent.writer(claimed);

        long granted = ask(writer, "turn-1", "deploy-1", "deploy");
        Future<HarnessRunResult> first = threads.submit(() -> runner.run(granted, "deploy-1", PATIENCE));
        Approval item = awaitPending(id, "deploy-1");
        assertThat(first.isDone()).isFalse(); // it waits for the approver, nothing ran
        assertThat(ran).hasValue(0);
        approver.decide(item.id(), ApprovalDecision.grantOnce("ship it")).decidedOrThrow();
        assertThat(first.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isInstanceOfSatisfying(ToolCompleted.class, c -> {
            assertThat(c.how()).isEqualTo(ToolCompleted.How.RAN);
            assertThat(c.idempotencyKey()).isEqualTo(id + "/" + granted + "/deploy-1");
        });
        assertThat(ran).hasValue(1);
        // the same step again is a no-op
        assertThat(runner.run(granted, "deploy-1")).isInstanceOfSatisfying(ToolCompleted.class,
                c -> assertThat(c.how()).isEqualTo(ToolCompleted.How.REPORTED_BEFORE));
        assertThat(ran).hasValue(1);

        long denied = ask(writer, "turn-2", "deploy-2", "deploy");
        Future<HarnessRunResult> second = threads.submit(() -> runner.run(denied, "deploy-2", PATIENCE));
        approver.decide(awaitPending(id, "deploy-2").id(), ApprovalDecision.deny("not on a Friday")).decidedOrThrow();
        assertThat(second.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isInstanceOfSatisfying(ToolDenied.class,
                d -> assertThat(d.reason()).contains("not on a Friday"));

        long interrupted = ask(writer, "turn-3", "deploy-3", "deploy");
        Future<HarnessRunResult> third = threads.submit(() -> runner.run(interrupted, "deploy-3", PATIENCE));
        awaitPending(id, "deploy-3");
        writer.append("turn-3/stop", NewEvent.turnInterrupted("", "the user pressed stop")).appendedOrThrow();
        assertThat(third.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(ToolCancelled.class);
        // Tether writes the CANCELLED result of the call that never started
        SessionEvent cancelled = agent.awaitEvent(id, interrupted, e -> e.type().equals("tool_result")
                && e.text("callId").equals(Optional.of("deploy-3")), PATIENCE).orElseThrow();
        assertThat(cancelled.text("status")).contains("CANCELLED");
        assertThat(ran).hasValue(1);
        assertThat(agent.allEvents(id).orElseThrow()).filteredOn(e -> e.type().equals("tool_call_started")).hasSize(1);
    }

    /**
     * A session declaring {@code *} recorded-only: a call of a tool it never named (and one of a built-in, gated tool) is
     * the harness's to report; its result is taken without a start; the approval-service answers neither call (it did
     * act on the turn: it authorized the declared tool's call beside them, and later a sentinel's), the projector asks
     * the executor for nothing, and the checkpoint and recovery report flag them recorded-only.
     */
    @Test
    void aRecordedOnlyWildcard_takesTheHarnesssResultOfAnUndeclaredTool_andNoServiceAnswersIt() throws Exception {
        String id = "wildcard-" + UUID.randomUUID().toString().substring(0, 8);
        HarnessTool lookup = HarnessTool.readOnly("lookup");
        agent.createSession(NewSession.of("Triage the ticket", "claude-sonnet-4", ToolMode.WRITE).withSessionId(id)
                .withHarnessTools(List.of(HarnessTool.recorded(HarnessTool.WILDCARD, false), lookup))).createdOrThrow();
        Claimed claimed = agent.claim(id, ClaimRequest.of("worker-w", "v1")).claimedOrThrow();
        SessionWriter writer = agent.writer(claimed);

        long turn = writer.append("turn-1", NewEvent.assistantMessage("Looking around.", List.of(
                new ToolCall("c1", "some_unknown_tool", "{\"q\":\"ticket 7\"}"), new ToolCall("c2", "run_command", "{\"command\":\"ls\"}"),
                new ToolCall("c3", "lookup", "{}")), new TokenUsage(10, 5))).appendedOrThrow().seqs().get(0);
        Appended results = writer.append("turn-1/results",
                NewEvent.toolResult("c1", id + "/" + turn + "/c1", ToolStatus.OK, "3 tickets"),
                NewEvent.toolResult("c2", id + "/" + turn + "/c2", ToolStatus.OK, "a.txt")).appendedOrThrow();
        long sentinel = ask(writer, "turn-2", "c4", "lookup");
        // the approval-service has read the whole log up to the sentinel once it answers the sentinel's call
        agent.awaitEvent(id, sentinel, e -> e.type().equals("tool_call_authorized") && e.text("callId").equals(Optional.of("c4")), PATIENCE)
                .orElseThrow();
        Checkpoint checkpoint = agent.checkpoint(id, ReadAt.atLeast(sentinel)).orElseThrow();

        List<SessionEvent> log = agent.allEvents(id).orElseThrow();
        for (String callId : List.of("c1", "c2")) {
            assertThat(log).as(callId).filteredOn(e -> e.seq() > turn && e.text("callId").equals(Optional.of(callId)))
                    .singleElement().satisfies(e -> {
                        assertThat(e.type()).isEqualTo("tool_result");
                        assertThat(e.seq()).isIn(results.seqs());
                        assertThat(e.actor().kind()).isEqualTo("TOOL");
                        assertThat(e.text("status")).contains("OK");
                    });
        }
        assertThat(log).filteredOn(e -> e.text("callId").equals(Optional.of("c3"))).extracting(SessionEvent::type)
                .containsExactly("tool_call_authorized");
        assertThat(log).extracting(SessionEvent::type).doesNotContain("approval_requested", "tool_call_started");

        assertThat(checkpoint.call("c1")).hasValueSatisfying(c -> {
            assertThat(c.runBy()).isEqualTo("RECORDED");
            assertThat(c.state()).isEqualTo("OK");
        });
        assertThat(checkpoint.call("c3")).hasValueSatisfying(c -> assertThat(c.runBy()).isEqualTo("HARNESS"));
        RecoveryReport report = agent.recovery(id, ReadAt.atLeast(sentinel)).orElseThrow();
        for (String callId : List.of("c1", "c2")) {
            assertThat(report.effects().harnessCall(callId)).as(callId).hasValueSatisfying(c -> {
                assertThat(c.tool()).isEqualTo(callId.equals("c1") ? "some_unknown_tool" : "run_command");
                assertThat(c.recordedOnly()).isTrue();
                assertThat(c.exactlyOnce()).isFalse();
                assertThat(c.outcome()).isEqualTo("CONFIRMED");
            });
        }
        // the projector emits a tool request for no call of the session, so the executor never hears of them; a session
        // without harness tools, whose list_dir call the projector does ask the executor for, shows the topic read right
        String control = "wildcard-control-" + UUID.randomUUID().toString().substring(0, 8);
        agent.createSession(NewSession.of("List it", "claude-sonnet-4", ToolMode.WRITE).withSessionId(control)).createdOrThrow();
        long controlTurn = ask(agent.writer(agent.claim(control, ClaimRequest.of("worker-c", "v1")).claimedOrThrow()), "turn-1", "c1",
                "list_dir");
        await().atMost(PATIENCE).pollInterval(Duration.ofMillis(500)).until(() -> toolRequestKeys().contains(control + "/" + controlTurn + "/c1"));
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(500))
                .until(() -> toolRequestKeys().stream().noneMatch(key -> key.startsWith(id + "/")));
    }

    /** The keys of every committed record of this stack's tool-requests topic. */
    private static List<String> toolRequestKeys() {
        return TopicReader.readAll(prefix + "tool-requests").stream().map(r -> new String(r.key(), StandardCharsets.UTF_8)).toList();
    }

    @Test
    void aStaleWorker_isFenced_atItsStart_andAtItsResult_andTheNewWorkerReconcilesWhatItDid() throws Exception {
        String id = "fenced-" + UUID.randomUUID().toString().substring(0, 8);
        agent.createSession(NewSession.of("Record payments", "claude-sonnet-4", ToolMode.WRITE).withSessionId(id)
                .withHarnessTools(List.of(PaymentWorker.declaration()))).createdOrThrow();
        var payments = new PaymentWorker.Payments(Files.createDirectories(workDir.resolve("payments-" + id)));
        var inEffect = new CountDownLatch(1);
        var release = new CountDownLatch(1);
        Claimed first = agent.claim(id, ClaimRequest.of("worker-old", "v1")).claimedOrThrow();
        HarnessToolRunner old = HarnessToolRunner.builder(agent, first).tool(PaymentWorker.declaration(), call -> {
            payments.record(call.idempotencyKey(), call.argumentsJson());
            inEffect.countDown();
            release.await();
            return ToolOutput.ok("recorded");
        }, payments::reconcile).build();
        SessionWriter oldWriter = agent.writer(first);
        long paySeq = ask(oldWriter, "turn-1", "pay-a", PaymentWorker.TOOL);
        long laterSeq = ask(oldWriter, "turn-2", "pay-b", PaymentWorker.TOOL);

        Future<HarnessRunResult> running = threads.submit(() -> old.run(paySeq, "pay-a", PATIENCE));
        approver.decide(awaitPending(id, "pay-a").id(), ApprovalDecision.grantOnce("ok")).decidedOrThrow();
        assertThat(inEffect.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();

        Claimed second = agent.claim(id, ClaimRequest.of("worker-new", "v1")).claimedOrThrow();
        assertThat(second.epoch()).isEqualTo(2);
        release.countDown();
        // the old worker's result is refused: it ran under epoch 1
        assertThat(running.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isInstanceOfSatisfying(Fenced.class,
                f -> assertThat(f.currentEpoch()).isEqualTo(2));
        // and so is its start of a call authorized after the new claim
        approver.decide(awaitPending(id, "pay-b").id(), ApprovalDecision.grantOnce("ok")).decidedOrThrow();
        assertThat(old.run(laterSeq, "pay-b", PATIENCE)).isInstanceOf(Fenced.class);
        assertThat(payments.requests()).hasSize(1);

        HarnessToolRunner fresh = HarnessToolRunner.builder(agent, second).tool(PaymentWorker.declaration(), call -> {
            payments.record(call.idempotencyKey(), call.argumentsJson());
            return ToolOutput.ok("recorded");
        }, payments::reconcile).build();
        List<HarnessRunResult> resumed = fresh.resume();
        assertThat(resumed).anySatisfy(r -> assertThat(r).isInstanceOfSatisfying(ToolCompleted.class, c -> {
            assertThat(c.callId()).isEqualTo("pay-a");
            assertThat(c.how()).isEqualTo(ToolCompleted.How.RECONCILED);
        }));
        assertThat(fresh.run(laterSeq, "pay-b")).isInstanceOfSatisfying(ToolCompleted.class, c -> assertThat(c.status()).isEqualTo(ToolStatus.OK));
        assertThat(payments.requests()).hasSize(2);
        assertThat(payments.appliedCount()).isEqualTo(2);
        List<SessionEvent> starts = agent.allEvents(id).orElseThrow().stream().filter(e -> e.type().equals("tool_call_started")).toList();
        assertThat(starts).extracting(e -> e.text("callId").orElseThrow() + "@" + e.longField("epoch").orElse(0))
                .containsExactly("pay-a@1", "pay-b@2");
    }

    // --- helpers ----------------------------------------------------------------------------------------------------

    /** Appends a turn asking for one call of {@code tool}; the assistant message's seq. */
    private static long ask(SessionWriter writer, String step, String callId, String tool) {
        return writer.append(step, NewEvent.assistantMessage("Calling " + tool + ".", List.of(new ToolCall(callId, tool, "{\"target\":\"" + callId
                + "\"}")), new TokenUsage(10, 5))).appendedOrThrow().seqs().get(0);
    }

    private static long seqOf(List<SessionEvent> events, String type) {
        return events.stream().filter(e -> e.type().equals(type)).findFirst().orElseThrow(() -> new AssertionError("no " + type)).seq();
    }

    private static Approval awaitPending(String sessionId, String callId) {
        return await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200))
                .until(() -> approver.approvals(ApprovalFilter.pending()).stream()
                        .filter(a -> a.sessionId().equals(sessionId) && a.callId().equals(callId)).findFirst(), Optional::isPresent)
                .orElseThrow();
    }

    /** {@link PaymentWorker} in a JVM of its own, on this JVM's class path; its output lines collected. */
    private static ChildJvm worker(String sessionId, String workerId, PaymentWorker.Payments payments, String killPoint) throws IOException {
        ChildJvm worker = ChildJvm.start(List.of(PaymentWorker.class.getName(), sessions.baseUrl(), projector.baseUrl(), approvalService.baseUrl(),
                "dev-acme-agent", sessionId, workerId, payments.dir().toString(), killPoint), Map.of());
        workers.add(worker);
        return worker;
    }
}
