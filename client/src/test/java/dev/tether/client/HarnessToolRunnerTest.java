package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link HarnessToolRunner} against a fake session-service ({@link FakeSessionLog} on the scripted {@link FakeServer}):
 * the protocol's steps and their eventIds, waiting, denial and interruption, re-runs, reconciliation on resume,
 * fencing. The real sequencer's rules are {@code HarnessRunIT}'s.
 */
class HarnessToolRunnerTest {

    private static final String SESSION = "s-1";
    private static final HarnessTool PAY = HarnessTool.mutating("pay").reconcilable();
    private static final HarnessTool DEPLOY = HarnessTool.mutating("deploy");
    private static final HarnessTool SEARCH = HarnessTool.readOnly("search");

    private FakeServer server;
    private FakeSessionLog log;
    private TetherClient client;
    private final List<ToolInvocation> ran = new CopyOnWriteArrayList<>();
    private final List<ToolInvocation> asked = new CopyOnWriteArrayList<>();
    private Reconciliation found = Reconciliation.noEffect("nothing under that key");

    @BeforeEach
    void start() {
        server = new FakeServer();
        log = new FakeSessionLog(SESSION, server);
        client = TetherClient.create(server.options());
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    private HarnessToolRunner runner(HarnessToolFunction deploy) {
        return HarnessToolRunner.builder(client, log.claimed())
                .tool(PAY, call -> {
                    ran.add(call);
                    return ToolOutput.ok("paid under " + call.idempotencyKey());
                }, call -> {
                    asked.add(call);
                    return found;
                })
                .tool(DEPLOY, deploy)
                .tool(SEARCH, call -> {
                    throw new IllegalStateException("index offline");
                })
                .authorizationTimeout(Duration.ofSeconds(10))
                .build();
    }

    private HarnessToolRunner runner() {
        return runner(call -> {
            ran.add(call);
            return ToolOutput.ok("deployed");
        });
    }

    /** A call asked for and authorized by policy; its request's seq. */
    private long authorized(String callId, String tool) {
        long seq = log.ask(callId, tool, "{}");
        log.authorize(callId);
        return seq;
    }

    /** A call asked for, authorized and started (attempt 1, epoch 1) by a worker that died before its result; its request's seq. */
    private long startedWithoutResult(String callId, String tool) {
        long seq = authorized(callId, tool);
        log.add("tool_call_started", "TOOL", Map.of("callId", callId, "idempotencyKey", key(seq, callId), "epoch", 1, "attempt", 1));
        return seq;
    }

    private static String key(long seq, String callId) {
        return SESSION + "/" + seq + "/" + callId;
    }

    /** The key a tool is handed for the call of {@code key}: with the session's start, which a later session under the id does not repeat. */
    private String external(String key) {
        return key + "~" + log.startedAt().toEpochMilli();
    }

    @Test
    void anAuthorizedCall_isStarted_runWithTheKey_andReported_underEventIdsDerivedFromTheKey() throws Exception {
        long seq = log.ask("c1", "pay", "{\"amount\":5}");
        log.authorize("c1");

        HarnessRunResult result = runner().run(seq, "c1");

        String key = key(seq, "c1");
        assertThat(result).isEqualTo(new ToolCompleted("c1", key, ToolStatus.OK, java.util.Optional.of("paid under " + external(key)), seq + 3,
                ToolCompleted.How.RAN));
        assertThat(ran).singleElement().isEqualTo(new ToolInvocation(SESSION, "c1", "pay", "{\"amount\":5}", seq, external(key), 1, 1, key));
        ObjectNode started = log.ofType("tool_call_started").get(0);
        assertThat(started.get("idempotencyKey").asText()).isEqualTo(key);
        assertThat(started.get("externalKey").asText()).as("the key handed to the tool, recorded before it runs").isEqualTo(external(key));
        assertThat(started.get("epoch").asLong()).isEqualTo(1);
        assertThat(started.get("attempt").asInt()).isEqualTo(1);
        assertThat(started.get("eventId").asText()).isEqualTo(EventIds.of(SESSION, "harness/" + key + "/start", 0));
        ObjectNode reported = log.ofType("tool_result").get(0);
        assertThat(reported.get("idempotencyKey").asText()).isEqualTo(key);
        assertThat(reported.get("status").asText()).isEqualTo("OK");
        assertThat(reported.get("eventId").asText()).isEqualTo(EventIds.of(SESSION, "harness/" + key + "/result", 0));
        assertThat(server.requests()).filteredOn(r -> r.method().equals("POST")).allSatisfy(r -> assertThat(r.body()).contains("\"epoch\":1"));
    }

    @Test
    void theClaimsSessionStart_suffixesTheExternalKey_withoutAReadOfTheFirstEvent_andAnotherSessionsStartRunsNothing() throws Exception {
        long seq = authorized("c1", "pay");
        String key = key(seq, "c1");

        assertThat(runner().run(seq, "c1")).isInstanceOf(ToolCompleted.class);
        assertThat(ran).singleElement().extracting(ToolInvocation::idempotencyKey).isEqualTo(external(key));
        assertThat(server.requests()).as("the start came with the claim").noneMatch(r -> r.method().equals("GET")
                && "fromSeq=1&limit=1".equals(r.query()));
        assertThat(server.requests()).filteredOn(r -> r.method().equals("POST"))
                .allSatisfy(r -> assertThat(r.body()).contains("\"sessionStartedAt\":\"" + log.startedAt() + "\""));

        Claimed claimed = log.claimed();
        Claimed ofAnErasedSession = new Claimed(SESSION, claimed.workerId(), claimed.epoch(), Optional.empty(), claimed.lastSeq(),
                Optional.of(log.startedAt().minusSeconds(60)));
        long other = authorized("c2", "deploy");
        HarnessToolRunner stale = HarnessToolRunner.builder(client, ofAnErasedSession).tool(DEPLOY, call -> {
            ran.add(call);
            return ToolOutput.ok("deployed twice");
        }).build();

        assertThat(stale.run(other, "c2")).isInstanceOf(NotFound.class);
        assertThat(ran).hasSize(1);
        assertThat(log.ofType("tool_call_started")).hasSize(1);
    }

    /** The client sends the start again; the duplicate it is answered is this run's own start, so the tool runs, once. */
    @Test
    void aStartWhoseAnswerWasLost_isTakenForThisRunsOwn_andTheToolRunsOnce() throws Exception {
        long seq = authorized("c1", "deploy");
        log.loseTheAnswerToTheNext("tool_call_started");

        HarnessRunResult result = runner().run(seq, "c1");

        assertThat(server.requests()).filteredOn(r -> r.method().equals("POST") && r.body().contains("tool_call_started")).hasSize(2);
        assertThat(log.ofType("tool_call_started")).hasSize(1);
        assertThat(ran).hasSize(1);
        assertThat(result).isInstanceOfSatisfying(ToolCompleted.class, c -> assertThat(c.how()).isEqualTo(ToolCompleted.How.RAN));
        assertThat(log.ofType("tool_result")).singleElement().satisfies(r -> assertThat(r.get("status").asText()).isEqualTo("OK"));
    }

    /**
     * The tool ran, and its result could not be appended within the client's retries: the run throws, and the next run of
     * the call in this runner reports the output it kept, rather than take the attempt for one a crash left without a
     * result (no hook: UNKNOWN, for a person to decide what this runner knows).
     */
    @Test
    void aResultThatCouldNotBeAppended_isReportedByTheNextRun_notReconciledAsIfACrashHadLostIt() throws Exception {
        long seq = authorized("c1", "deploy");
        HarnessToolRunner runner = runner();
        log.unavailableFor("tool_result");

        assertThatThrownBy(() -> runner.run(seq, "c1")).isInstanceOf(TetherException.class);
        assertThat(ran).hasSize(1);
        assertThat(log.ofType("tool_call_started")).hasSize(1);
        assertThat(log.ofType("tool_result")).isEmpty();

        log.unavailableFor(null);
        HarnessRunResult again = runner.run(seq, "c1");

        assertThat(ran).as("never run twice").hasSize(1);
        assertThat(again).isEqualTo(new ToolCompleted("c1", key(seq, "c1"), ToolStatus.OK, Optional.of("deployed"), seq + 3,
                ToolCompleted.How.RAN));
        assertThat(log.ofType("tool_result")).singleElement().satisfies(r -> {
            assertThat(r.get("status").asText()).isEqualTo("OK");
            assertThat(r.get("eventId").asText()).isEqualTo(EventIds.of(SESSION, "harness/" + key(seq, "c1") + "/result", 0));
        });
    }

    /**
     * The start got into the log, and every answer to it was lost within the client's retries: the run throws before the
     * tool runs. The next run of the call in this runner takes that start for its own, as it does a duplicate answered
     * within one run, and runs the tool once, rather than take the attempt for one a crash left without a result.
     */
    @Test
    void aStartWhoseAnswersWereAllLost_isRunByTheNextRun_notReconciledAsIfACrashHadLostIt() throws Exception {
        long seq = authorized("c1", "deploy");
        HarnessToolRunner runner = runner();
        log.loseTheAnswerToTheNext("tool_call_started");
        log.onAppend(e -> {
            if (e.get("type").asText().equals("tool_call_started")) {
                log.unavailableFor("tool_call_started"); // the client's retries of it get no verdict either
            }
        });

        assertThatThrownBy(() -> runner.run(seq, "c1")).isInstanceOf(TetherException.class);
        assertThat(log.ofType("tool_call_started")).hasSize(1);
        assertThat(ran).isEmpty();

        log.unavailableFor(null);
        HarnessRunResult again = runner.run(seq, "c1");

        assertThat(log.ofType("tool_call_started")).hasSize(1);
        assertThat(ran).singleElement().satisfies(call -> {
            assertThat(call.attempt()).isEqualTo(1);
            assertThat(call.idempotencyKey()).isEqualTo(external(key(seq, "c1")));
        });
        assertThat(again).isEqualTo(new ToolCompleted("c1", key(seq, "c1"), ToolStatus.OK, Optional.of("deployed"), seq + 3,
                ToolCompleted.How.RAN));
        assertThat(runner.run(seq, "c1")).as("then a re-run is a no-op").isInstanceOfSatisfying(ToolCompleted.class,
                c -> assertThat(c.how()).isEqualTo(ToolCompleted.How.REPORTED_BEFORE));
        assertThat(ran).hasSize(1);
    }

    /** ...but not once another worker claimed the session since: the attempt is the new worker's to reconcile. */
    @Test
    void aStartWhoseAnswersWereAllLost_isNotRunByTheNextRun_onceAnotherWorkerClaimedTheSession() throws Exception {
        long seq = authorized("c1", "deploy");
        HarnessToolRunner runner = runner();
        log.loseTheAnswerToTheNext("tool_call_started");
        log.onAppend(e -> {
            if (e.get("type").asText().equals("tool_call_started")) {
                log.unavailableFor("tool_call_started");
            }
        });
        assertThatThrownBy(() -> runner.run(seq, "c1")).isInstanceOf(TetherException.class);
        log.unavailableFor(null);
        log.claimByAnother();

        assertThat(runner.run(seq, "c1")).isInstanceOfSatisfying(Fenced.class, f -> assertThat(f.currentEpoch()).isEqualTo(2));
        assertThat(ran).isEmpty();
        assertThat(log.ofType("tool_result")).isEmpty();
    }

    /**
     * The start got in, its answer was lost, and while the client waited to send it again another worker claimed the
     * session (the network trouble that loses answers is what makes a worker look dead): the duplicate the retry is
     * answered with is no longer this run's to run — the new worker reconciles that attempt — so the run is Fenced and
     * runs nothing, as the next run would be after a start whose every answer was lost.
     */
    @Test
    void aStartWhoseAnswerWasLost_isNotRunByThisRun_onceAnotherWorkerClaimedTheSessionMeanwhile() throws Exception {
        long seq = authorized("c1", "deploy");
        log.loseTheAnswerToTheNext("tool_call_started");
        log.onAppend(e -> {
            if (e.get("type").asText().equals("tool_call_started")) {
                log.claimByAnother(); // before the client's retry of the start
            }
        });

        HarnessRunResult result = runner().run(seq, "c1");

        assertThat(ran).as("the attempt is the new worker's to reconcile: run here too, it may take effect twice").isEmpty();
        assertThat(result).isInstanceOfSatisfying(Fenced.class, f -> assertThat(f.currentEpoch()).isEqualTo(2));
        assertThat(log.ofType("tool_call_started")).hasSize(1);
    }

    /**
     * Between this worker's read of the log and its start, another worker claimed the session and ran the call under the
     * same key, whose start has the same eventId: the sequencer answers this worker's start as that one's duplicate
     * (duplicates are answered before the epoch is checked), after the log this run read. That start is not this run's:
     * the tool must not run again.
     */
    @Test
    void aStartAnsweredAsTheDuplicateOfAnotherWorkersStart_doesNotRunTheToolAgain() throws Exception {
        long seq = authorized("c1", "deploy");
        var before = new java.util.concurrent.atomic.AtomicBoolean();
        HarnessToolRunner stale = HarnessToolRunner.builder(client, log.claimed())
                .tool(DEPLOY, call -> {
                    ran.add(call);
                    return ToolOutput.ok("deployed by " + call.epoch());
                })
                .onAuthorized(call -> { // this worker read the log and is about to start the call: another takes over first
                    if (before.compareAndSet(false, true)) {
                        log.claimByAnother();
                        HarnessToolRunner other = HarnessToolRunner.builder(client, log.claimed()).tool(DEPLOY, c -> {
                            ran.add(c);
                            return ToolOutput.ok("deployed by " + c.epoch());
                        }).build();
                        try {
                            assertThat(other.run(seq, "c1")).isInstanceOf(ToolCompleted.class);
                        } catch (InterruptedException e) {
                            throw new AssertionError(e);
                        }
                    }
                })
                .build();

        HarnessRunResult result = stale.run(seq, "c1");

        assertThat(ran).as("run once, by the worker that claimed the session").singleElement()
                .satisfies(call -> assertThat(call.epoch()).isEqualTo(2));
        assertThat(result).satisfiesAnyOf(r -> assertThat(r).isInstanceOf(Fenced.class),
                r -> assertThat(r).isInstanceOfSatisfying(ToolCompleted.class, c -> assertThat(c.how()).isEqualTo(ToolCompleted.How.REPORTED_BEFORE)));
        assertThat(log.ofType("tool_call_started")).hasSize(1);
    }

    /** An interrupt that lands while the runner waits for an append's answer is run's InterruptedException, as for its waits. */
    @Test
    void aRunInterruptedDuringAnAppend_throwsInterruptedException_andRunsNothing() throws Exception {
        long seq = authorized("c1", "deploy");
        var appending = new java.util.concurrent.CountDownLatch(1);
        log.onAppend(e -> {
            appending.countDown();
            try {
                Thread.sleep(3_000); // the start's answer is late
            } catch (InterruptedException stopped) {
                Thread.currentThread().interrupt();
            }
        });
        var thrown = new CompletableFuture<Throwable>();
        HarnessToolRunner runner = runner();
        Thread worker = new Thread(() -> {
            try {
                runner.run(seq, "c1");
                thrown.complete(null);
            } catch (Throwable t) {
                thrown.complete(Thread.currentThread().isInterrupted() ? new AssertionError("the flag is still set", t) : t);
            }
        });
        worker.start();
        assertThat(appending.await(5, TimeUnit.SECONDS)).isTrue();

        worker.interrupt();

        assertThat(thrown.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        assertThat(ran).isEmpty();
    }

    /** {@code ToolOutput.ok(null)}, a tool whose call answered nothing: a result without content, not a function that threw. */
    @Test
    void anOutputWithNullContent_isAResultWithoutContent_notAFailureOfTheTool() throws Exception {
        long seq = authorized("c1", "deploy");

        HarnessRunResult result = runner(call -> {
            ran.add(call);
            return ToolOutput.ok(null);
        }).run(seq, "c1");

        assertThat(ran).hasSize(1);
        assertThat(result).isInstanceOfSatisfying(ToolCompleted.class, c -> {
            assertThat(c.status()).isEqualTo(ToolStatus.OK);
            assertThat(c.content()).isEmpty();
            assertThat(c.how()).isEqualTo(ToolCompleted.How.RAN);
        });
        assertThat(log.ofType("tool_result")).singleElement().satisfies(r -> {
            assertThat(r.get("status").asText()).isEqualTo("OK");
            assertThat(r.has("content")).isFalse();
        });
        assertThat(ToolOutput.error(null).content()).isEmpty();
        assertThat(ToolOutput.cancelled(null).content()).isEmpty();
        assertThat(ToolOutput.unknown(null).content()).isEmpty();
    }

    @Test
    void anAuthorizationTimeoutLongerThanAnInstantReaches_waitsWithoutLimit_andANullOrNegativeOneIsRefused() throws Exception {
        long seq = authorized("c1", "deploy");
        Duration forever = java.time.temporal.ChronoUnit.FOREVER.getDuration();

        HarnessRunResult result = runner().run(seq, "c1", forever);

        assertThat(result).isInstanceOfSatisfying(ToolCompleted.class, c -> assertThat(c.how()).isEqualTo(ToolCompleted.How.RAN));
        assertThat(HarnessToolRunner.builder(client, log.claimed()).tool(DEPLOY, call -> ToolOutput.ok("x")).authorizationTimeout(forever)
                .build().run(seq, "c1")).isInstanceOf(ToolCompleted.class);
        assertThatThrownBy(() -> runner().run(seq, "c1", null)).isInstanceOf(NullPointerException.class).hasMessage("authorizationTimeout");
        assertThatThrownBy(() -> runner().run(seq, "c1", Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("authorizationTimeout");
        assertThatThrownBy(() -> HarnessToolRunner.builder(client, log.claimed()).authorizationTimeout(null))
                .isInstanceOf(NullPointerException.class).hasMessage("authorizationTimeout");
    }

    @Test
    void aFunctionForTheWildcard_runsACallOfAnyToolWithoutOneOfItsOwn_andAToolAddedByNameKeepsItsOwn() throws Exception {
        var byName = new CopyOnWriteArrayList<ToolInvocation>();
        HarnessToolRunner runner = HarnessToolRunner.builder(client, log.claimed())
                .tool(HarnessTool.readOnly(HarnessTool.WILDCARD), call -> {
                    ran.add(call);
                    return ToolOutput.ok("ran " + call.tool());
                })
                .tool(DEPLOY, call -> {
                    byName.add(call);
                    return ToolOutput.ok("deployed");
                })
                .authorizationTimeout(Duration.ofSeconds(10)).build();
        long lookup = authorized("c1", "lookup_ticket");
        long deploy = authorized("c2", "deploy");

        HarnessRunResult result = runner.run(lookup, "c1");
        runner.run(deploy, "c2");

        assertThat(result).isInstanceOfSatisfying(ToolCompleted.class, c -> assertThat(c.content()).contains("ran lookup_ticket"));
        assertThat(ran).singleElement().satisfies(c -> assertThat(c.tool()).isEqualTo("lookup_ticket"));
        assertThat(byName).singleElement().satisfies(c -> assertThat(c.tool()).isEqualTo("deploy"));
        assertThat(runner.declarations()).extracting(HarnessTool::name).containsExactly("*", "deploy");
        assertThatThrownBy(() -> runner().run(authorized("c3", "lookup_ticket"), "c3")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lookup_ticket");

        long other = authorized("c5", "other_tool");
        server.then(FakeServer.json(200, "{\"sessionId\":\"s-1\",\"lastSeq\":" + (other + 1) + ",\"status\":\"RECOVERING\","
                + "\"toolCursor\":[{\"callId\":\"c5\",\"tool\":\"other_tool\",\"requestSeq\":" + other + ",\"idempotencyKey\":\""
                + key(other, "c5") + "\",\"state\":\"AUTHORIZED\",\"awaitingApproval\":false,\"runBy\":\"HARNESS\",\"attempt\":0}]}"));
        assertThat(runner.resume()).as("resume takes a call the function for '*' runs").singleElement()
                .isInstanceOfSatisfying(ToolCompleted.class, c -> assertThat(c.content()).contains("ran other_tool"));
    }

    @Test
    void theSameStepAgain_isANoOp_thatAnswersTheResultInTheLog() throws Exception {
        long seq = authorized("c1", "pay");
        HarnessToolRunner runner = runner();
        runner.run(seq, "c1");
        int events = log.events().size();

        HarnessRunResult again = runner.run(seq, "c1");
        HarnessRunResult fromAnotherRunner = runner().run(seq, "c1");

        assertThat(again).isInstanceOfSatisfying(ToolCompleted.class, c -> assertThat(c.how()).isEqualTo(ToolCompleted.How.REPORTED_BEFORE));
        assertThat(fromAnotherRunner).isEqualTo(again);
        assertThat(log.events()).hasSize(events);
        assertThat(ran).hasSize(1);
    }

    @Test
    void itWaitsForTheAuthorization_onTheLiveLog_andRunsOnceItComes() throws Exception {
        long seq = log.ask("c1", "deploy", "{}");
        log.add("approval_requested", "SYSTEM", Map.of("callId", "c1", "tool", "deploy", "shown", "deploy {}"));
        HarnessToolRunner runner = runner();
        var result = waiting(runner, seq, "c1");
        assertThat(result).isNotDone();
        assertThat(log.ofType("tool_call_started")).isEmpty();

        log.add("approval_granted", "APPROVER", Map.of("callId", "c1", "scope", "ONCE", "approver", "acme-approver", "reason", "ok"));
        log.authorize("c1");

        assertThat(result.get(10, TimeUnit.SECONDS)).isInstanceOf(ToolCompleted.class);
        assertThat(ran).hasSize(1);
    }

    @Test
    void aWaitThatRunsOut_isNotYetAuthorized_andNothingRuns() throws Exception {
        long seq = log.ask("c1", "deploy", "{}");
        log.add("approval_requested", "SYSTEM", Map.of("callId", "c1", "tool", "deploy", "shown", "deploy {}"));

        HarnessRunResult result = runner().run(seq, "c1", Duration.ofMillis(300));

        assertThat(result).isInstanceOfSatisfying(NotYetAuthorized.class, n -> assertThat(n.awaitingApproval()).isTrue());
        assertThat(log.ofType("tool_call_started")).isEmpty();
        assertThat(ran).isEmpty();
    }

    /** An approver asked while the run waited: the wait that runs out says so, as of the last seq it names. */
    @Test
    void aWaitThatRunsOut_saysAnApproverWasAsked_whenTheRequestCameDuringTheWait() throws Exception {
        long seq = log.ask("c1", "deploy", "{}");
        HarnessToolRunner runner = runner();
        var asking = CompletableFuture.runAsync(() -> {
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            log.add("approval_requested", "SYSTEM", Map.of("callId", "c1", "tool", "deploy", "shown", "deploy {}"));
        });

        HarnessRunResult result = runner.run(seq, "c1", Duration.ofMillis(1_500));

        asking.get(5, TimeUnit.SECONDS);
        assertThat(result).isInstanceOfSatisfying(NotYetAuthorized.class, n -> {
            assertThat(n.lastSeq()).isEqualTo(seq + 1);
            assertThat(n.awaitingApproval()).as("approval_requested at seq %d", seq + 1).isTrue();
        });
        assertThat(ran).isEmpty();
    }

    @Test
    void aDenial_endsTheWait_asDenied_withoutARun() throws Exception {
        long seq = log.ask("c1", "deploy", "{}");
        HarnessToolRunner runner = runner();
        var result = waiting(runner, seq, "c1");
        long denial = log.add("approval_denied", "APPROVER", Map.of("callId", "c1", "scope", "ONCE", "approver", "acme-approver",
                "reason", "not on a Friday"));

        assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo(new ToolDenied("c1", "denied by acme-approver: not on a Friday", denial));
        assertThat(ran).isEmpty();
        assertThat(log.ofType("tool_call_started")).isEmpty();
    }

    @Test
    void anInterruption_endsTheWait_asCancelled_withoutARun_evenOnceAuthorized() throws Exception {
        long seq = log.ask("c1", "deploy", "{}");
        HarnessToolRunner runner = runner();
        var result = waiting(runner, seq, "c1");
        long stop = log.add("turn_interrupted", "USER", Map.of("partialText", "", "reason", "stop"));
        log.authorize("c1"); // a late authorization authorizes nothing

        assertThat(result.get(10, TimeUnit.SECONDS)).isInstanceOfSatisfying(ToolCancelled.class, c -> assertThat(c.seq()).isEqualTo(stop));
        assertThat(runner.run(seq, "c1")).isInstanceOf(ToolCancelled.class);
        assertThat(ran).isEmpty();
        assertThat(log.ofType("tool_call_started")).isEmpty();
    }

    @Test
    void aStartedCallWithoutResult_isReconciled_asDone_neverRunAgain() throws Exception {
        long seq = startedWithoutResult("c1", "pay");
        String key = key(seq, "c1");
        found = Reconciliation.tookEffect(ToolOutput.ok("found the payment"));

        HarnessRunResult result = runner().run(seq, "c1");

        assertThat(result).isInstanceOfSatisfying(ToolCompleted.class, c -> {
            assertThat(c.how()).isEqualTo(ToolCompleted.How.RECONCILED);
            assertThat(c.idempotencyKey()).isEqualTo(key);
        });
        assertThat(asked).singleElement().satisfies(a -> assertThat(a.idempotencyKey()).isEqualTo(key));
        assertThat(ran).isEmpty();
        assertThat(log.ofType("tool_call_started")).hasSize(1);
        assertThat(log.ofType("tool_result")).singleElement().satisfies(r -> {
            assertThat(r.get("status").asText()).isEqualTo("OK");
            assertThat(r.get("idempotencyKey").asText()).isEqualTo(key);
        });
    }

    @Test
    void aStartedCallWithoutResult_isReconciledByTheKeyItsStartRecorded() throws Exception {
        long seq = authorized("c1", "pay");
        String handed = key(seq, "c1") + "~1796114809377"; // what the start handed the tool, whatever this runner would derive
        log.add("tool_call_started", "TOOL", Map.of("callId", "c1", "idempotencyKey", key(seq, "c1"), "epoch", 1, "attempt", 1,
                "externalKey", handed));
        found = Reconciliation.tookEffect(ToolOutput.ok("found the payment"));

        HarnessRunResult result = runner().run(seq, "c1");

        assertThat(asked).singleElement().satisfies(a -> {
            assertThat(a.idempotencyKey()).isEqualTo(handed);
            assertThat(a.logKey()).isEqualTo(key(seq, "c1"));
        });
        assertThat(result).isInstanceOfSatisfying(ToolCompleted.class, c -> assertThat(c.idempotencyKey()).isEqualTo(key(seq, "c1")));
        assertThat(log.ofType("tool_result")).singleElement().satisfies(r -> assertThat(r.get("idempotencyKey").asText())
                .isEqualTo(key(seq, "c1")));
    }

    @Test
    void aStartedCallWithoutEffect_isRetriedInTheWorkersName_andRunOnceUnderTheRetrysKey() throws Exception {
        long seq = startedWithoutResult("c1", "pay");

        HarnessRunResult result = runner().run(seq, "c1");

        ObjectNode retry = log.ofType("tool_outcome_resolved").get(0);
        assertThat(retry.get("resolution").asText()).isEqualTo("RETRY");
        assertThat(retry.get("approver").asText()).isEqualTo("acme-agent"); // the claim's actor
        String newKey = key(retry.get("seq").asLong(), "c1");
        assertThat(ran).singleElement().satisfies(r -> {
            assertThat(r.idempotencyKey()).isEqualTo(external(newKey));
            assertThat(r.logKey()).isEqualTo(newKey);
            assertThat(r.attempt()).isEqualTo(2);
        });
        assertThat(log.ofType("tool_call_started")).extracting(s -> s.get("attempt").asInt()).containsExactly(1, 2);
        assertThat(result).isInstanceOfSatisfying(ToolCompleted.class, c -> assertThat(c.idempotencyKey()).isEqualTo(newKey));
    }

    @Test
    void aStartedCallTheHookCannotTell_orWithoutAHook_endsUnknown_forAPerson_andStaysSo() throws Exception {
        long pay = startedWithoutResult("c1", "pay");
        long deploy = startedWithoutResult("c2", "deploy");
        found = Reconciliation.cannotTell("the ledger is down");
        HarnessToolRunner runner = runner();

        assertThat(runner.run(pay, "c1")).isInstanceOfSatisfying(ToolOutcomeUnknown.class, u -> assertThat(u.reason()).isEqualTo("the ledger is down"));
        assertThat(runner.run(deploy, "c2")).isInstanceOfSatisfying(ToolOutcomeUnknown.class,
                u -> assertThat(u.reason()).contains("no reconciliation hook"));
        int events = log.events().size();
        assertThat(runner.run(deploy, "c2")).isInstanceOf(ToolOutcomeUnknown.class);
        assertThat(log.events()).hasSize(events);
        assertThat(log.ofType("tool_result")).extracting(r -> r.get("status").asText()).containsExactly("UNKNOWN", "UNKNOWN");
        assertThat(ran).isEmpty();

        // a person's RETRY: the call runs once more under the RETRY's key; MARK_DONE finishes the other
        long retry = log.add("tool_outcome_resolved", "APPROVER", Map.of("callId", "c2", "resolution", "RETRY", "approver", "acme-approver",
                "reason", "checked: nothing deployed"));
        assertThat(runner.run(deploy, "c2")).isInstanceOfSatisfying(ToolCompleted.class,
                c -> assertThat(c.idempotencyKey()).isEqualTo(key(retry, "c2")));
        log.add("tool_outcome_resolved", "APPROVER", Map.of("callId", "c1", "resolution", "MARK_DONE", "approver", "acme-approver",
                "reason", "paid by hand"));
        assertThat(runner.run(pay, "c1")).isInstanceOfSatisfying(ToolResolvedByPerson.class,
                r -> assertThat(r.resolution()).isEqualTo("MARK_DONE"));
    }

    @Test
    void aThrowingFunction_isAnError_forAReadOnlyTool_unknown_forAMutatingOne_reconciled_forAReconcilableOne() throws Exception {
        long search = authorized("c1", "search");
        long deploy = authorized("c2", "deploy");
        HarnessToolRunner throwing = runner(call -> {
            throw new java.io.IOException("connection reset");
        });

        assertThat(throwing.run(search, "c1")).isInstanceOfSatisfying(ToolCompleted.class, c -> {
            assertThat(c.status()).isEqualTo(ToolStatus.ERROR);
            assertThat(c.content().orElseThrow()).contains("index offline");
        });
        assertThat(throwing.run(deploy, "c2")).isInstanceOfSatisfying(ToolOutcomeUnknown.class,
                u -> assertThat(u.reason()).contains("connection reset", "may or may not"));

        long pay = authorized("c3", "pay");
        found = Reconciliation.tookEffect(ToolOutput.ok("paid after all"));
        HarnessToolRunner payThrows = HarnessToolRunner.builder(client, log.claimed()).tool(PAY, call -> {
            throw new java.io.IOException("timeout");
        }, call -> found).build();
        assertThat(payThrows.run(pay, "c3")).isInstanceOfSatisfying(ToolCompleted.class,
                c -> assertThat(c.how()).isEqualTo(ToolCompleted.How.RECONCILED));
    }

    /** A {@link #PAY} whose function always throws {@code failure}, and whose hook always proves no effect. */
    private HarnessToolRunner payFailingEveryTime(String failure) {
        return HarnessToolRunner.builder(client, log.claimed()).tool(PAY, call -> {
            ran.add(call);
            throw new java.io.IOException(failure);
        }, call -> {
            asked.add(call);
            return Reconciliation.noEffect("no charge under that key");
        }).build();
    }

    /**
     * A reconcilable tool whose function throws every time, each attempt proven without effect, was started again in a
     * tight loop (8 starts and 8 RETRYs in one run), then the run threw IllegalStateException after MAX_STEPS. As the
     * executor (CallRules.MAX_STARTS), a call is started at most {@link HarnessToolRunner#MAX_STARTS} times: then it ends
     * ERROR, which names the limit and the last failure, and is never started again.
     */
    @Test
    void aReconcilableFunctionThatKeepsThrowing_isStartedAtMostMaxStartsTimes_thenEndsError_namingTheLimitAndTheFailure() throws Exception {
        long seq = authorized("c1", "pay");
        HarnessToolRunner runner = payFailingEveryTime("card network down");

        HarnessRunResult result = runner.run(seq, "c1");

        assertThat(HarnessToolRunner.MAX_STARTS).isEqualTo(3);
        assertThat(ran).extracting(ToolInvocation::attempt).containsExactly(1, 2, 3);
        assertThat(asked).extracting(ToolInvocation::attempt).containsExactly(1, 2, 3);
        List<ObjectNode> starts = log.ofType("tool_call_started");
        assertThat(starts).extracting(s -> s.get("attempt").asInt()).containsExactly(1, 2, 3);
        assertThat(log.ofType("tool_outcome_resolved")).hasSize(2);
        String lastKey = starts.get(2).get("idempotencyKey").asText();
        assertThat(result).isInstanceOfSatisfying(ToolCompleted.class, c -> {
            assertThat(c.status()).isEqualTo(ToolStatus.ERROR);
            assertThat(c.idempotencyKey()).isEqualTo(lastKey);
            assertThat(c.how()).isEqualTo(ToolCompleted.How.RAN);
            assertThat(c.content().orElseThrow()).contains("pay failed: java.io.IOException: card network down", "started 3 times",
                    "MAX_STARTS", "no charge under that key");
        });
        assertThat(log.ofType("tool_result")).singleElement().satisfies(r -> {
            assertThat(r.get("status").asText()).isEqualTo("ERROR");
            assertThat(r.get("idempotencyKey").asText()).isEqualTo(lastKey);
            assertThat(r.get("eventId").asText()).isEqualTo(EventIds.of(SESSION, "harness/" + lastKey + "/result", 0));
        });

        int events = log.events().size();
        assertThat(runner.run(seq, "c1")).isInstanceOfSatisfying(ToolCompleted.class,
                c -> assertThat(c.how()).isEqualTo(ToolCompleted.How.REPORTED_BEFORE));
        assertThat(log.events()).hasSize(events);
        assertThat(ran).hasSize(3);
    }

    /** One that fails twice and then succeeds is not stopped: its third start is its last allowed, not one too many. */
    @Test
    void aReconcilableFunctionThatSucceedsAtItsLastAllowedStart_endsOk() throws Exception {
        long seq = authorized("c1", "pay");
        HarnessToolRunner runner = HarnessToolRunner.builder(client, log.claimed()).tool(PAY, call -> {
            ran.add(call);
            if (call.attempt() < HarnessToolRunner.MAX_STARTS) {
                throw new java.io.IOException("card network down");
            }
            return ToolOutput.ok("paid");
        }, call -> Reconciliation.noEffect("no charge under that key")).build();

        assertThat(runner.run(seq, "c1")).isInstanceOfSatisfying(ToolCompleted.class, c -> {
            assertThat(c.status()).isEqualTo(ToolStatus.OK);
            assertThat(c.content()).contains("paid");
        });
        assertThat(ran).extracting(ToolInvocation::attempt).containsExactly(1, 2, 3);
    }

    /**
     * The starts are counted from the log, as the executor counts them from its ledger: a worker that takes over a call a
     * dead worker started twice gets one start more, not three, and one that finds the third start without a result
     * (the worker died in it) starts it no more: ERROR, without running it.
     */
    @Test
    void theStartsAreCountedFromTheLog_soARestartedWorkerGetsNoFreshStarts() throws Exception {
        // a dead worker: attempt 1 proven without effect (its RETRY), attempt 2 started without a result
        long twice = authorized("c1", "pay");
        log.add("tool_call_started", "TOOL", Map.of("callId", "c1", "idempotencyKey", key(twice, "c1"), "epoch", 1, "attempt", 1));
        long retry = log.add("tool_outcome_resolved", "TOOL", Map.of("callId", "c1", "resolution", "RETRY", "approver", "acme-agent",
                "reason", "reconciled: no effect"));
        log.add("tool_call_started", "TOOL", Map.of("callId", "c1", "idempotencyKey", key(retry, "c1"), "epoch", 1, "attempt", 2));

        assertThat(payFailingEveryTime("card network down").run(twice, "c1")).isInstanceOfSatisfying(ToolCompleted.class, c -> {
            assertThat(c.status()).isEqualTo(ToolStatus.ERROR);
            assertThat(c.content().orElseThrow()).contains("card network down", "started 3 times");
        });
        assertThat(asked).extracting(ToolInvocation::attempt).containsExactly(2, 3);
        assertThat(ran).extracting(ToolInvocation::attempt).containsExactly(3);

        // attempt 3 started without a result (the worker died in it): reconciled as no effect, it is not started again
        ran.clear();
        asked.clear();
        long thrice = authorized("c2", "pay");
        long keySeq = thrice;
        for (int attempt = 1; attempt <= HarnessToolRunner.MAX_STARTS; attempt++) {
            if (attempt > 1) {
                keySeq = log.add("tool_outcome_resolved", "TOOL", Map.of("callId", "c2", "resolution", "RETRY", "approver", "acme-agent",
                        "reason", "reconciled: no effect"));
            }
            log.add("tool_call_started", "TOOL", Map.of("callId", "c2", "idempotencyKey", key(keySeq, "c2"), "epoch", 1, "attempt", attempt));
        }
        int retries = log.ofType("tool_outcome_resolved").size();

        HarnessRunResult result = HarnessToolRunner.builder(client, log.claimed()).tool(PAY, call -> {
            ran.add(call);
            return ToolOutput.ok("paid");
        }, call -> {
            asked.add(call);
            return Reconciliation.noEffect("no charge under that key");
        }).build().run(thrice, "c2");

        String lastKey = key(keySeq, "c2");
        assertThat(result).isInstanceOfSatisfying(ToolCompleted.class, c -> {
            assertThat(c.status()).isEqualTo(ToolStatus.ERROR);
            assertThat(c.idempotencyKey()).isEqualTo(lastKey);
            assertThat(c.how()).isEqualTo(ToolCompleted.How.RECONCILED);
            assertThat(c.content().orElseThrow()).contains("started 3 times", "MAX_STARTS", "no charge under that key");
        });
        assertThat(ran).isEmpty();
        assertThat(asked).extracting(ToolInvocation::attempt).containsExactly(3);
        assertThat(log.ofType("tool_outcome_resolved")).hasSize(retries);
        assertThat(log.ofType("tool_call_started").stream().filter(s -> s.get("callId").asText().equals("c2"))).hasSize(3);
    }

    @Test
    void aHookThatThrows_appendsNothing_andThrows() throws Exception {
        long seq = startedWithoutResult("c1", "pay");
        int events = log.events().size();
        HarnessToolRunner runner = HarnessToolRunner.builder(client, log.claimed()).tool(PAY, call -> ToolOutput.ok("x"), call -> {
            throw new java.io.IOException("ledger unreachable");
        }).build();

        assertThatThrownBy(() -> runner.run(seq, "c1")).isInstanceOf(HarnessHookException.class).hasMessageContaining("ledger unreachable");
        assertThat(log.events()).hasSize(events);
    }

    @Test
    void aStaleWorker_isFenced_atItsStart_andAtItsResult() throws Exception {
        long first = authorized("c1", "deploy");
        long second = authorized("c2", "deploy");
        HarnessToolRunner stale = runner(call -> {
            log.claimByAnother(); // another worker claims the session while the tool runs
            return ToolOutput.ok("deployed");
        });

        assertThat(stale.run(first, "c1")).isInstanceOfSatisfying(Fenced.class, f -> assertThat(f.currentEpoch()).isEqualTo(2));
        assertThat(log.ofType("tool_call_started")).hasSize(1);
        assertThat(log.ofType("tool_result")).isEmpty();
        assertThat(stale.run(second, "c2")).isInstanceOf(Fenced.class);
        assertThat(log.ofType("tool_call_started")).hasSize(1);
    }

    @Test
    void aRefusedStep_isReadAgain_andARefusalThatStays_isRejected() throws Exception {
        long seq = authorized("c1", "deploy");
        log.refuseNext(e -> e.get("type").asText().equals("tool_call_started") ? "call 'c1' is run by the tool-executor" : null);
        HarnessToolRunner runner = runner();
        // refused once, then accepted on the next read: a race, not a refusal
        assertThat(runner.run(seq, "c1")).isInstanceOf(ToolCompleted.class);

        long other = authorized("c2", "deploy");
        var refusals = new ArrayList<String>();
        log.refuseEvery(e -> {
            refusals.add(e.get("type").asText());
            return "call 'c2' is run by the tool-executor";
        });
        assertThat(runner.run(other, "c2")).isInstanceOfSatisfying(Rejected.class, r -> assertThat(r.code()).isEqualTo("illegal_event"));
        assertThat(refusals).hasSize(3).containsOnly("tool_call_started");
        assertThat(ran).hasSize(1);
    }

    @Test
    void resume_takesTheStartedAndAuthorizedHarnessCalls_ofTheCheckpoint() throws Exception {
        long paid = startedWithoutResult("c1", "pay");
        long waiting = log.ask("c2", "deploy", "{}");
        found = Reconciliation.tookEffect(ToolOutput.ok("found it"));
        HarnessToolRunner runner = runner();
        String cursor = "{\"callId\":\"%s\",\"tool\":\"%s\",\"requestSeq\":%d,\"idempotencyKey\":\"%s\",\"state\":\"%s\",\"awaitingApproval\":%s,"
                + "\"runBy\":\"%s\",\"attempt\":%d}";
        String checkpoint = "{\"sessionId\":\"s-1\",\"lastSeq\":9,\"status\":\"RECOVERING\",\"toolCursor\":["
                + cursor.formatted("c1", "pay", paid, key(paid, "c1"), "STARTED", false, "HARNESS", 1) + ","
                + cursor.formatted("c2", "deploy", waiting, key(waiting, "c2"), "REQUESTED", true, "HARNESS", 0) + ","
                + cursor.formatted("e1", "read_file", waiting, key(waiting, "e1"), "AUTHORIZED", false, "EXECUTOR", 0) + "]}";
        server.then(FakeServer.json(200, checkpoint));

        List<HarnessRunResult> resumed = runner.resume();

        assertThat(resumed).singleElement().isInstanceOfSatisfying(ToolCompleted.class, c -> {
            assertThat(c.callId()).isEqualTo("c1");
            assertThat(c.how()).isEqualTo(ToolCompleted.How.RECONCILED);
        });
        assertThat(server.requests().get(0).path()).isEqualTo("/v1/sessions/s-1/checkpoint");
    }

    /** resume() declares InterruptedException: an interrupt during its read of the checkpoint is that, as during run's requests. */
    @Test
    void resumeInterruptedWhileItReadsTheCheckpoint_throwsInterruptedException() throws Exception {
        var reading = new java.util.concurrent.CountDownLatch(1);
        server.then(exchange -> {
            reading.countDown();
            Thread.sleep(3_000); // the checkpoint's answer is late
            FakeServer.json(200, "{\"sessionId\":\"s-1\",\"lastSeq\":1,\"status\":\"RUNNING\",\"toolCursor\":[]}").answer(exchange);
        });
        HarnessToolRunner runner = runner();
        var thrown = new CompletableFuture<Throwable>();
        Thread worker = new Thread(() -> {
            try {
                runner.resume();
                thrown.complete(null);
            } catch (Throwable t) {
                thrown.complete(Thread.currentThread().isInterrupted() ? new AssertionError("the flag is still set", t) : t);
            }
        });
        worker.start();
        assertThat(reading.await(5, TimeUnit.SECONDS)).isTrue();

        worker.interrupt();

        assertThat(thrown.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    }

    @Test
    void misuse_isRefusedEarly() {
        long seq = log.ask("c1", "read_file", "{}");
        HarnessToolRunner runner = runner();
        assertThatThrownBy(() -> runner.run(seq, "c1")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("read_file");
        assertThatThrownBy(() -> runner.run(seq, "nope")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nope");
        assertThatThrownBy(() -> HarnessToolRunner.builder(client, log.claimed()).tool(DEPLOY, c -> null, c -> null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reconcilable");
        assertThatThrownBy(() -> HarnessToolRunner.builder(client, log.claimed()).tool(PAY, c -> null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reconciler");
        assertThatThrownBy(() -> HarnessToolRunner.builder(client, log.claimed()).tool(HarnessTool.recorded("r", false), c -> null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("recorded-only");
        assertThatThrownBy(() -> HarnessToolRunner.builder(client, log.claimed()).tool(DEPLOY, c -> null).tool(DEPLOY, c -> null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice");
        assertThatThrownBy(() -> new HarnessTool("x", false, true, true)).isInstanceOf(IllegalArgumentException.class);
        assertThat(runner.declarations()).containsExactly(PAY, DEPLOY, SEARCH);
    }

    @Test
    void aSessionDeclaresItsHarnessTools_andOneWithoutAny_sendsWhatItSentBefore() throws Exception {
        var created = "{\"sessionId\":\"s-2\",\"seq\":1,\"harnessVersion\":\"v1\",\"modelId\":\"m\",\"redactions\":0}";
        server.then(FakeServer.json(201, created)).then(FakeServer.json(201, created));
        client.createSession(NewSession.of("o", "m", ToolMode.WRITE).withSessionId("s-2").withHarnessTools(List.of(PAY, SEARCH)));
        client.createSession(NewSession.of("o", "m", ToolMode.WRITE).withSessionId("s-2"));
        assertThat(server.requests().get(0).body()).contains("\"harnessTools\":[{\"name\":\"pay\",\"mutating\":true,\"canReconcile\":true,"
                + "\"recordedOnly\":false},{\"name\":\"search\",\"mutating\":false,\"canReconcile\":false,\"recordedOnly\":false}]");
        assertThat(server.requests().get(1).body()).doesNotContain("harnessTools");
    }

    /** {@code runner.run} on another thread, once it follows the live log (it waits). */
    private CompletableFuture<HarnessRunResult> waiting(HarnessToolRunner runner, long seq, String callId) {
        var result = CompletableFuture.supplyAsync(() -> run(runner, seq, callId, Duration.ofSeconds(20)));
        await().atMost(Duration.ofSeconds(10)).until(() -> server.requests().stream()
                .anyMatch(r -> "text/event-stream".equals(r.header("Accept"))));
        return result;
    }

    private static HarnessRunResult run(HarnessToolRunner runner, long seq, String callId, Duration wait) {
        try {
            return runner.run(seq, callId, wait);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
