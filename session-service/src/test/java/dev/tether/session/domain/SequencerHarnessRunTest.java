package dev.tether.session.domain;

import static dev.tether.session.domain.Given.AGENT;
import static dev.tether.session.domain.Given.APPROVER;
import static dev.tether.session.domain.Given.MODEL;
import static dev.tether.session.domain.Given.SERVICE;
import static dev.tether.session.domain.Given.SESSION;
import static dev.tether.session.domain.Given.V1;
import static dev.tether.session.domain.Given.approvalRequested;
import static dev.tether.session.domain.Given.asking;
import static dev.tether.session.domain.Given.authorizedByPolicy;
import static dev.tether.session.domain.Given.call;
import static dev.tether.session.domain.Given.denied;
import static dev.tether.session.domain.Given.interrupted;
import static dev.tether.session.domain.Given.resolved;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.core.event.ActorKind;
import dev.tether.core.event.CallRunner;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.HarnessTool;
import dev.tether.core.event.OutcomeResolution;
import dev.tether.core.event.SessionForked;
import dev.tether.core.event.SessionResumed;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.ToolCallStarted;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.id.IdempotencyKey;
import dev.tether.session.domain.Decision.Accepted;
import dev.tether.session.domain.Decision.Rejected;
import dev.tether.session.domain.Given.World;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The sequencer's rules for harness-run calls (docs/ARCHITECTURE.md §6, "Harness-run tools"), as folds of the decider:
 * every legal step of the protocol, and every refusal, each leaving head and log unchanged ({@link World#reject}).
 */
class SequencerHarnessRunTest {

    /** Runs in the harness, reconcilable. */
    static final HarnessTool SEND = new HarnessTool("send_email", true, true, false);
    /** Runs in the harness, no reconciliation hook. */
    static final HarnessTool CHARGE = new HarnessTool("charge_card", true, false, false);
    /** Reported after the fact. */
    static final HarnessTool SEARCH = new HarnessTool("web_search", false, false, true);

    static SessionStarted startedWithHarnessTools() {
        return new SessionStarted("send the report", "You are careful.", MODEL, V1, ToolMode.WRITE, List.of(), null, null,
                List.of(SEND, CHARGE, SEARCH));
    }

    /** A session with harness tools whose call {@code c1} of {@code tool} was asked for at seq 2. */
    static World asked(String tool) {
        World w = World.started(SESSION, startedWithHarnessTools());
        w.accept(w.append(AGENT, asking(call("c1", tool))));
        return w;
    }

    /** ... and authorized by policy (seq 3). */
    static World authorized(String tool) {
        World w = asked(tool);
        w.accept(w.append(SERVICE, authorizedByPolicy("c1")));
        return w;
    }

    static final String KEY = IdempotencyKey.of(SESSION, 2, "c1");

    static ToolCallStarted start(long epoch, int attempt) {
        return new ToolCallStarted("c1", KEY, epoch, attempt);
    }

    static ToolResult result(ToolStatus status, String key) {
        return new ToolResult("c1", key, status, "sent", null);
    }

    /** An append of {@code by} that carries {@code epoch}, as a worker's appends do. */
    static dev.tether.session.domain.CommandEnvelope fenced(World w, dev.tether.core.auth.TetherPrincipal by, long epoch,
                                                           EventPayload... payloads) {
        var events = new java.util.ArrayList<dev.tether.core.event.ProposedEvent>();
        for (EventPayload p : payloads) {
            events.add(w.ev(by, p));
        }
        return w.appendEvents(by, null, epoch, events.toArray(dev.tether.core.event.ProposedEvent[]::new));
    }

    static void assertIllegal(Rejected r, String field, String messagePart) {
        assertThat(r.reason()).isEqualTo(Rejection.ILLEGAL_EVENT);
        assertThat(r.field()).isEqualTo(field);
        assertThat(r.message()).contains(messagePart);
    }

    @Nested
    class TheProtocol {

        @Test
        void aHarnessRunCall_isAskedAuthorizedStartedAndAnswered_andEachStepIsInTheHead() {
            World w = asked("send_email");
            assertThat(w.head.harnessTools()).containsExactly(SEND, CHARGE, SEARCH);
            assertThat(w.head.openCalls().get("c1").runBy()).isEqualTo(CallRunner.HARNESS);

            w.accept(w.append(SERVICE, authorizedByPolicy("c1")));
            Accepted started = w.accept(fenced(w, AGENT, 0, start(0, 1)));
            assertThat(started.events().get(0).actor().kind()).isEqualTo(ActorKind.TOOL);
            assertThat(w.head.openCalls().get("c1")).extracting(SessionHead.OpenCall::running, SessionHead.OpenCall::attempts)
                    .containsExactly(true, 1);

            w.accept(fenced(w, AGENT, 0, result(ToolStatus.OK, KEY)));
            assertThat(w.head.openCalls()).doesNotContainKey("c1");
        }

        @Test
        void theStartAndTheResult_mayComeInOneAppend() {
            World w = authorized("send_email");

            w.accept(fenced(w, AGENT, 0, start(0, 1), result(ToolStatus.OK, KEY)));

            assertThat(w.head.openCalls()).isEmpty();
        }

        @Test
        void aCallOfAToolTheSessionDidNotDeclare_isTheExecutors() {
            World w = asked("write_file");

            assertThat(w.head.openCalls().get("c1").runBy()).isEqualTo(CallRunner.EXECUTOR);
            w.accept(w.append(SERVICE, authorizedByPolicy("c1")));
            assertIllegal(w.reject(fenced(w, AGENT, 0, start(0, 1))), "events[0].callId", "is run by the tool-executor");
            w.accept(w.append(SERVICE, Given.result("c1"))); // the executor's result, as ever
        }

        @Test
        void aForkKeepsItsParentsHarnessTools() {
            World w = World.empty("fork-1");
            w.accept(w.append(AGENT, new SessionForked(SESSION, 3, "o", "", MODEL, V1, ToolMode.WRITE, List.of(),
                    List.of(SEND))));
            w.accept(w.append(AGENT, asking(call("c1", "send_email"))));

            assertThat(w.head.harnessTools()).containsExactly(SEND);
            assertThat(w.head.openCalls().get("c1").runBy()).isEqualTo(CallRunner.HARNESS);
        }
    }

    @Nested
    class Refusals {

        @Test
        void refusesAStart_beforeTheCallIsAuthorized_andWhileItWaitsForAnApprover() {
            World w = asked("send_email");
            assertIllegal(w.reject(fenced(w, AGENT, 0, start(0, 1))), "events[0].callId", "is not authorized yet");

            w.accept(w.append(SERVICE, approvalRequested("c1", "send_email")));
            assertIllegal(w.reject(fenced(w, AGENT, 0, start(0, 1))), "events[0].callId", "it waits for an approver");
        }

        @Test
        void refusesAStart_fromAStaleEpoch_inItsPayloadOrItsAppend() {
            World w = authorized("send_email");
            w.accept(w.claim(AGENT, "worker-1", V1, false)); // epoch 1

            Rejected inPayload = w.reject(fenced(w, AGENT, 1, start(0, 1)));
            assertThat(inPayload.reason()).isEqualTo(Rejection.STALE_EPOCH);
            assertThat(inPayload.field()).isEqualTo("events[0].epoch");
            assertThat(w.reject(fenced(w, AGENT, 0, start(0, 1))).reason()).isEqualTo(Rejection.STALE_EPOCH);
            w.accept(fenced(w, AGENT, 1, start(1, 1)));
        }

        @Test
        void refusesAResult_fromAStaleEpoch_orInAnAppendWithoutOne() {
            World w = authorized("send_email");
            w.accept(w.claim(AGENT, "worker-1", V1, false));
            w.accept(fenced(w, AGENT, 1, start(1, 1)));
            w.accept(w.claim(AGENT, "worker-2", V1, false)); // worker-1 is fenced

            assertThat(w.reject(fenced(w, AGENT, 1, result(ToolStatus.OK, KEY))).reason()).isEqualTo(Rejection.STALE_EPOCH);
            assertIllegal(w.reject(w.append(AGENT, result(ToolStatus.OK, KEY))), "events[0]", "carries the worker's epoch");
        }

        @Test
        void refusesASecondStart_ofAnAttemptWithoutAResult_evenByTheNextWorker() {
            World w = authorized("send_email");
            w.accept(fenced(w, AGENT, 0, start(0, 1)));

            assertIllegal(w.reject(fenced(w, AGENT, 0, start(0, 2))), "events[0].callId", "its outcome is unknown");
            w.accept(w.claim(AGENT, "worker-2", V1, false));
            assertIllegal(w.reject(fenced(w, AGENT, 1, start(1, 2))), "events[0].callId", "never start it again");
        }

        @Test
        void refusesAResult_forAHarnessRunCallNeverStarted() {
            World w = authorized("send_email");

            assertIllegal(w.reject(fenced(w, AGENT, 0, result(ToolStatus.OK, KEY))), "events[0].callId", "was never started");
        }

        @Test
        void refusesAStartOrResult_withAnotherKey_andAStartWithAnotherAttempt() {
            World w = authorized("send_email");

            assertIllegal(w.reject(fenced(w, AGENT, 0, new ToolCallStarted("c1", "s/9/c1", 0, 1))), "events[0].idempotencyKey", KEY);
            assertIllegal(w.reject(fenced(w, AGENT, 0, start(0, 2))), "events[0].attempt", "must be 1");
            w.accept(fenced(w, AGENT, 0, start(0, 1)));
            assertIllegal(w.reject(fenced(w, AGENT, 0, result(ToolStatus.OK, "s/9/c1"))), "events[0].idempotencyKey", KEY);
        }

        @Test
        void aStartRecordsTheExternalKeyItHandedTheTool_whichMustBeTheCallsKeyAndTheSessionsStart() {
            World w = authorized("send_email");
            String external = IdempotencyKey.external(KEY, w.head.startedAt());
            assertThat(external).isEqualTo(KEY + "~" + w.head.startedAt().toEpochMilli());

            assertIllegal(w.reject(fenced(w, AGENT, 0, new ToolCallStarted("c1", KEY, 0, 1, KEY + "~1"))), "events[0].externalKey",
                    external);
            assertIllegal(w.reject(fenced(w, AGENT, 0, new ToolCallStarted("c1", KEY, 0, 1, KEY))), "events[0].externalKey", external);
            Accepted started = w.accept(fenced(w, AGENT, 0, new ToolCallStarted("c1", KEY, 0, 1, external)));
            assertThat(((ToolCallStarted) started.events().get(0).payload()).externalKey()).isEqualTo(external);
        }

        @Test
        void refusesAStart_ofARecordedOnlyCall_andAStartByAService() {
            World w = authorized("web_search");
            assertIllegal(w.reject(fenced(w, AGENT, 0, start(0, 1))), "events[0].callId", "is recorded-only");

            World h = authorized("send_email");
            assertIllegal(h.reject(h.append(SERVICE, start(0, 1))), "events[0].type", "not by a service");
        }

        @Test
        void refusesAStart_ofACallWhoseTurnWasInterrupted_andTakesTetherssCancellationOnce() {
            World w = authorized("send_email");
            w.accept(w.append(AGENT, interrupted()));

            assertIllegal(w.reject(fenced(w, AGENT, 0, start(0, 1))), "events[0].callId", "its turn was interrupted at seq 4");
            ToolResult cancelled = result(ToolStatus.CANCELLED, KEY);
            w.accept(w.append(SERVICE, cancelled));
            assertThat(w.head.openCalls()).isEmpty();
            assertIllegal(w.reject(w.append(SERVICE, cancelled)), "events[0].callId", "is not an open tool call");
        }
    }

    @Nested
    class NeverTheExecutors {

        @Test
        void aServiceMayNotWriteTheResultOfAnAuthorizedHarnessRunCall_whateverItsStatus_norCancelOneThatStarted() {
            World w = authorized("send_email");
            for (ToolStatus status : List.of(ToolStatus.OK, ToolStatus.ERROR, ToolStatus.UNKNOWN)) {
                assertIllegal(w.reject(w.append(SERVICE, result(status, KEY))), "events[0].callId", "never the tool-executor's");
            }
            w.accept(fenced(w, AGENT, 0, start(0, 1)));
            assertIllegal(w.reject(w.append(SERVICE, result(ToolStatus.CANCELLED, KEY))), "events[0].callId",
                    "never the tool-executor's");
        }

        @Test
        void theApprovalServicesAnswers_anErrorForACallNeverAuthorized_andACancellationOfOneNotStarted_areTaken() {
            World denial = asked("send_email");
            denial.accept(denial.append(SERVICE, approvalRequested("c1", "send_email")));
            denial.accept(denial.append(APPROVER, denied("c1", APPROVER.id())));
            denial.accept(denial.append(SERVICE, result(ToolStatus.ERROR, KEY)));
            assertThat(denial.head.openCalls()).isEmpty();

            World cancel = authorized("send_email");
            cancel.accept(cancel.append(SERVICE, result(ToolStatus.CANCELLED, KEY)));
            assertThat(cancel.head.openCalls()).isEmpty();
        }
    }

    @Nested
    class RecordedOnly {

        @Test
        void aRecordedOnlyCall_takesItsResultWithoutAStart_withItsKeyAndTheWorkersEpoch() {
            World w = asked("web_search");
            assertThat(w.head.openCalls().get("c1").runBy()).isEqualTo(CallRunner.RECORDED);

            assertIllegal(w.reject(fenced(w, AGENT, 0, result(ToolStatus.OK, "other"))), "events[0].idempotencyKey", KEY);
            assertIllegal(w.reject(w.append(AGENT, result(ToolStatus.OK, KEY))), "events[0]", "carries the worker's epoch");
            w.accept(fenced(w, AGENT, 0, result(ToolStatus.OK, KEY)));
            assertThat(w.head.openCalls()).isEmpty();
        }

        @Test
        void aCallOfAnUndeclaredTool_underARecordedOnlyWildcard_takesItsResultWithoutAStart_andANamedToolKeepsItsOwnRunner() {
            World w = World.started(SESSION, new SessionStarted("send the report", "", MODEL, V1, ToolMode.WRITE, List.of(), null, null,
                    List.of(new HarnessTool("*", false, false, true), SEND)));
            w.accept(w.append(AGENT, asking(call("c1", "some_unknown_tool"), call("c2", "read_file"), call("c3", "send_email"))));
            assertThat(w.head.openCalls().get("c1").runBy()).isEqualTo(CallRunner.RECORDED);
            assertThat(w.head.openCalls().get("c2").runBy()).as("a built-in tool's name too").isEqualTo(CallRunner.RECORDED);
            assertThat(w.head.openCalls().get("c3").runBy()).as("declared by its name").isEqualTo(CallRunner.HARNESS);

            assertIllegal(w.reject(fenced(w, AGENT, 0, start(0, 1))), "events[0].callId", "is recorded-only");
            assertIllegal(w.reject(w.append(SERVICE, result(ToolStatus.OK, KEY))), "events[0].callId", "never the tool-executor's");
            w.accept(fenced(w, AGENT, 0, result(ToolStatus.OK, KEY)));

            assertThat(w.head.openCalls()).containsOnlyKeys("c2", "c3");
            assertThat(w.log.get(w.log.size() - 1).payload()).isEqualTo(result(ToolStatus.OK, KEY));
        }
    }

    @Nested
    class CrashesAndResumes {

        /** The seq of the RETRY just appended, which is in the call's new key. */
        long retrySeqOf(World w) {
            return w.lastSeq();
        }

        /** Worker 2 starts attempt 2 under the key of the RETRY at {@code retrySeq}, and reports it: the call is finished. */
        void runsAttempt2UnderTheRetrysKey(World w, long retrySeq) {
            String newKey = IdempotencyKey.of(SESSION, retrySeq, "c1");
            w.accept(fenced(w, AGENT, 2, new ToolCallStarted("c1", newKey, 2, 2)));
            w.accept(fenced(w, AGENT, 2, result(ToolStatus.OK, newKey)));
            assertThat(w.head.openCalls()).isEmpty();
        }

        /** Worker 1 (epoch 1) started c1 and died; worker 2 claimed it (epoch 2). */
        World crashedAfterTheStart(String tool) {
            World w = authorized(tool);
            w.accept(w.claim(AGENT, "worker-1", V1, false));
            w.accept(fenced(w, AGENT, 1, new ToolCallStarted("c1", KEY, 1, 1)));
            w.accept(w.claim(AGENT, "worker-2", V1, false));
            return w;
        }

        @Test
        void theResumeRecord_saysTheCallStartedWithNoResult_andItsKey() {
            World w = crashedAfterTheStart("send_email");

            var resumed = (SessionResumed) w.log.get(w.log.size() - 1).payload();
            assertThat(resumed.reconciliation()).isEqualTo("open tool calls: c1 (send_email, run by the harness, attempt 1 started"
                    + " with no result: outcome unknown, reconcile it by key " + KEY + ")");
        }

        @Test
        void theNextWorker_reportsTheOutcomeItsHookFound_asTheResult() {
            World w = crashedAfterTheStart("send_email");

            w.accept(fenced(w, AGENT, 2, result(ToolStatus.OK, KEY)));

            assertThat(w.head.openCalls()).isEmpty();
        }

        @Test
        void theNextWorker_resolvesAnAttemptItsHookProvedHadNoEffect_withRetry_andStartsAttempt2UnderTheRetrysKey() {
            World w = crashedAfterTheStart("send_email");

            Accepted retry = w.accept(fenced(w, AGENT, 2, resolved("c1", OutcomeResolution.RETRY, AGENT.id())));
            long retrySeq = retry.events().get(0).seq();
            assertThat(retry.events().get(0).actor().kind()).isEqualTo(ActorKind.TOOL);
            String newKey = IdempotencyKey.of(SESSION, retrySeq, "c1");

            assertIllegal(w.reject(fenced(w, AGENT, 2, new ToolCallStarted("c1", KEY, 2, 2))), "events[0].idempotencyKey", newKey);
            runsAttempt2UnderTheRetrysKey(w, retrySeqOf(w));
        }

        @Test
        void aHarnessMayNotResolve_butWithRetry_inItsOwnName_andItsEpoch_aStartedCallOfAReconcilableTool() {
            World w = crashedAfterTheStart("send_email");
            assertIllegal(w.reject(fenced(w, AGENT, 2, resolved("c1", OutcomeResolution.MARK_DONE, AGENT.id()))),
                    "events[0].resolution", "only with RETRY");
            assertIllegal(w.reject(fenced(w, AGENT, 2, resolved("c1", OutcomeResolution.ABANDON, AGENT.id()))),
                    "events[0].resolution", "only with RETRY");
            assertIllegal(w.reject(fenced(w, AGENT, 2, resolved("c1", OutcomeResolution.RETRY, "someone-else"))),
                    "events[0].approver", "authenticated caller");
            assertIllegal(w.reject(w.append(AGENT, resolved("c1", OutcomeResolution.RETRY, AGENT.id()))), "events[0]",
                    "carries the worker's epoch");

            World noHook = crashedAfterTheStart("charge_card");
            assertIllegal(noHook.reject(fenced(noHook, AGENT, 2, resolved("c1", OutcomeResolution.RETRY, AGENT.id()))),
                    "events[0].callId", "was not declared canReconcile");

            World notStarted = authorized("send_email");
            assertIllegal(notStarted.reject(fenced(notStarted, AGENT, 0, resolved("c1", OutcomeResolution.RETRY, AGENT.id()))),
                    "events[0].callId", "with a started attempt and no result");
        }

        @Test
        void anOutcomeTheNextWorkerCannotTell_isReportedUnknown_andAnApproversRetryLetsItStartOnceMore() {
            World w = crashedAfterTheStart("charge_card");
            w.accept(fenced(w, AGENT, 2, result(ToolStatus.UNKNOWN, KEY)));
            assertThat(w.head.openCalls().get("c1").outcomeUnknown()).isTrue();
            assertIllegal(w.reject(fenced(w, AGENT, 2, new ToolCallStarted("c1", KEY, 2, 2))), "events[0].callId",
                    "unknown outcome");

            w.accept(w.append(APPROVER, resolved("c1", OutcomeResolution.RETRY, APPROVER.id())));
            runsAttempt2UnderTheRetrysKey(w, retrySeqOf(w));
        }

        @Test
        void anAuthorizedCallWhoseTurnWasInterrupted_isNotCalledSafeToRun_afterAResume_forItMustNotStart() {
            World w = authorized("send_email");
            w.accept(w.append(AGENT, interrupted()));
            w.accept(w.claim(AGENT, "worker-1", V1, false));
            w.accept(w.claim(AGENT, "worker-2", V1, false));

            var resumed = (SessionResumed) w.log.get(w.log.size() - 1).payload();
            assertThat(resumed.reconciliation()).as("what the resuming worker is told of c1").doesNotContain("safe to run")
                    .contains("c1 (send_email, run by the harness, authorized, not started, its turn interrupted at seq 4: it must not run)");
            assertIllegal(w.reject(fenced(w, AGENT, 2, start(2, 1))), "events[0].callId", "interrupted");
        }

        @Test
        void anAuthorizedCallNeverStarted_isSafeToRun_afterAResume() {
            World w = authorized("send_email");
            w.accept(w.claim(AGENT, "worker-1", V1, false));
            w.accept(w.claim(AGENT, "worker-2", V1, false));

            var resumed = (SessionResumed) w.log.get(w.log.size() - 1).payload();
            assertThat(resumed.reconciliation()).contains("authorized, not started: safe to run with key " + KEY);
            w.accept(fenced(w, AGENT, 2, start(2, 1)));
        }
    }
}
