package dev.tether.executor.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.core.blob.BlobRef;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.ToolStatus;
import dev.tether.executor.domain.CallOutcome.Ended;
import dev.tether.executor.domain.CallOutcome.Started;
import dev.tether.executor.domain.Step.Conclude;
import dev.tether.executor.domain.Step.Reconcile;
import dev.tether.executor.domain.Step.ReportAgain;
import dev.tether.executor.domain.Step.Run;
import dev.tether.tools.HttpFetchPolicy;
import dev.tether.tools.Intent;
import dev.tether.tools.LedgerEntry;
import dev.tether.tools.Reconciliation;
import dev.tether.tools.Tool;
import dev.tether.tools.ToolOutput;
import dev.tether.tools.ToolRegistry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Given/when/then tests of the executor's pure call rules: {@link CallRules#decide}, what the world's answers mean
 * ({@link CallRules#reconciled}, {@link CallRules#beforeStart}, ...) and {@link CallRules#evolve}, folding lists of
 * outcomes with no broker, no sandbox and no tool ever run (the tools are only handed around).
 */
class CallRulesTest {

    private static final ToolRegistry TOOLS = ToolRegistry.builder().addBuiltIns(HttpFetchPolicy.denyAll()).build();
    private static final Tool WRITE_FILE = TOOLS.forMode(ToolMode.WRITE).find("write_file").orElseThrow();
    private static final Tool READ_FILE = TOOLS.forMode(ToolMode.READ_ONLY).find("read_file").orElseThrow();

    private static final String KEY = "s1/3/c1";
    private static final String ARGUMENTS = "{\"path\":\"a.txt\",\"content\":\"hello\"}";
    private static final Instant AUTHORIZED_AT = Instant.parse("2026-11-29T09:59:00Z");
    private static final CallRequest REQUEST = new CallRequest(KEY, "s1", "acme", "c1", "write_file", ARGUMENTS, 3,
            ToolMode.WRITE, AuthorizationBasis.POLICY, AUTHORIZED_AT);

    private static final Authority.Verdict ALLOWED = new Authority.Allowed(WRITE_FILE);
    private static final String REASON = "refused: 'write_file' needs a human's approval in WRITE sessions of this tenant,"
            + " and the call has none";
    private static final Authority.Verdict REFUSED = new Authority.Refused(REASON);

    /** The hash file tools record for a file that does not exist. */
    private static final String ABSENT = "";
    private static final String HELLO = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";
    private static final BlobRef ARTIFACT = BlobRef.of("a".repeat(64), 70_000, "the first lines");

    /** The instance that died, the one that handles the call now, and when. */
    private static final String BEFORE_CRASH = "executor-0";
    private static final String EXECUTOR = "executor-1";
    private static final Instant T0 = Instant.parse("2026-11-29T09:59:30Z");
    private static final Instant NOW = Instant.parse("2026-11-29T10:00:00Z");

    // --- harness-run calls ----------------------------------------------------------------------------

    /**
     * A request for a call the session's harness runs (docs/ARCHITECTURE.md §6, "Harness-run tools"): not ours, whatever
     * the ledger holds and whatever the authority says. It is never run, refused or answered.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(value = dev.tether.core.event.CallRunner.class, names = {"HARNESS", "RECORDED"})
    void givenAHarnessRunRequest_whateverTheEntryAndTheVerdict_thenItIsNotOurs_andNothingIsRecordedRunOrReported(
            dev.tether.core.event.CallRunner runBy) {
        var harnessRun = new CallRequest(KEY, "s1", "acme", "c1", "write_file", ARGUMENTS, 3, ToolMode.WRITE, AuthorizationBasis.POLICY,
                runBy, AUTHORIZED_AT);
        for (Optional<CallEntry> entry : List.of(none(), Optional.of(started()), Optional.of(fold(new Started(1, ABSENT, HELLO, KEY),
                new Ended(CallState.OK, 1, "wrote", null, ABSENT, HELLO))))) {
            for (Authority.Verdict verdict : List.of(ALLOWED, REFUSED)) {
                assertThat(CallRules.decide(entry, harnessRun, verdict, Optional.of(WRITE_FILE))).as(runBy + " " + entry + " " + verdict)
                        .isInstanceOfSatisfying(dev.tether.executor.domain.Step.NotOurs.class,
                                n -> assertThat(n.why()).contains("run by the session's harness (" + runBy + ")"));
            }
        }
    }

    @Test
    void givenARequestOfAProjectorBeforeHarnessRunTools_thenItIsTheExecutors() {
        var old = new CallRequest(KEY, "s1", "acme", "c1", "write_file", ARGUMENTS, 3, ToolMode.WRITE, AuthorizationBasis.POLICY, null,
                AUTHORIZED_AT);

        assertThat(old.runBy()).isEqualTo(dev.tether.core.event.CallRunner.EXECUTOR);
        assertThat(CallRules.decide(none(), old, ALLOWED, Optional.of(WRITE_FILE))).isInstanceOf(Run.class);
    }

    // --- folds ---------------------------------------------------------------------------------------

    /** The entry after {@code outcomes}, recorded by the instance that died, one second apart from {@link #T0}. */
    private static CallEntry fold(CallOutcome... outcomes) {
        Optional<CallEntry> entry = Optional.empty();
        for (int i = 0; i < outcomes.length; i++) {
            entry = Optional.of(CallRules.evolve(entry, new Recorded(REQUEST, BEFORE_CRASH, T0.plusSeconds(i), outcomes[i])));
        }
        return entry.orElseThrow();
    }

    /** What the handling instance records now on top of {@code entry}. */
    private static CallEntry recordNow(Optional<CallEntry> entry, CallOutcome outcome) {
        return CallRules.evolve(entry, new Recorded(REQUEST, EXECUTOR, NOW, outcome));
    }

    private static CallEntry started() {
        return fold(new Started(1, ABSENT, HELLO, KEY));
    }

    private static Optional<CallEntry> none() {
        return Optional.empty();
    }

    private static Ended endOf(Step step) {
        assertThat(step).isInstanceOf(Conclude.class);
        return ((Conclude) step).outcome();
    }

    private static Reconcile reconcile(Authority.Verdict verdict) {
        return (Reconcile) CallRules.decide(Optional.of(started()), REQUEST, verdict, Optional.of(WRITE_FILE));
    }

    static Stream<Authority.Verdict> verdicts() {
        return Stream.of(ALLOWED, REFUSED);
    }

    static Stream<Arguments> endsAndVerdicts() {
        return Arrays.stream(CallState.values()).filter(CallState::ended)
                .flatMap(state -> verdicts().map(verdict -> Arguments.of(state, verdict)));
    }

    private static String unknownBecause(String why) {
        return "outcome unknown: the executor stopped while this call ran, and it cannot be proven whether it took effect ("
                + why + "). It was not run again; a human decides (the key it was handed for other systems: " + KEY + ").";
    }

    // --- 1. a new call -------------------------------------------------------------------------------

    @Nested
    class NewCall {

        @Test
        void givenNoEntry_whenTheAuthorityAllowsIt_thenItRuns_asAttemptOne() {
            Step step = CallRules.decide(none(), REQUEST, ALLOWED, Optional.of(WRITE_FILE));

            assertThat(step).isEqualTo(new Run(WRITE_FILE, 1));
        }

        @Test
        void givenNoEntry_whenTheAuthorityRefusesIt_thenAnErrorWithTheReasonIsRecorded_withoutStarted() {
            Step step = CallRules.decide(none(), REQUEST, REFUSED, Optional.of(WRITE_FILE));

            assertThat(step).isEqualTo(new Conclude(new Ended(CallState.ERROR, 1, REASON, null, null, null)));
            CallEntry entry = recordNow(none(), endOf(step));
            assertThat(entry.state()).isEqualTo(CallState.ERROR);
            assertThat(entry.attempt()).isEqualTo(1);
            assertThat(entry.startedAt()).isEqualTo(NOW);
            assertThat(entry.finishedAt()).isEqualTo(NOW);
            assertThat(entry.content()).isEqualTo(REASON);
            assertThat(entry.beforeHash()).isNull();
            assertThat(entry.afterHash()).isNull();
            assertThat(entry.executorId()).isEqualTo(EXECUTOR);
            assertThat(entry.reportedEventId()).isEqualTo(CallRules.resultEventId(KEY));
            assertThat(entry.resultFor(REQUEST).status()).isEqualTo(ToolStatus.ERROR);
            assertThat(entry.resultFor(REQUEST).content()).isEqualTo(REASON);
        }

        @Test
        void givenARun_whenItsArgumentsAreNotJson_thenAnErrorIsRecorded_andNothingIsAskedOfTheTool() {
            Ended end = CallRules.argumentsNotJson(new Run(WRITE_FILE, 1)).outcome();

            assertThat(end).isEqualTo(new Ended(CallState.ERROR, 1, "invalid arguments: not JSON", null, null, null));
        }

        @Test
        void givenARun_whenTheTurnWasInterruptedBeforeIt_thenItIsCancelled_withoutStarting() {
            Ended end = endOf(CallRules.beforeStart(new Run(WRITE_FILE, 1), REQUEST, 4));

            assertThat(end).isEqualTo(new Ended(CallState.CANCELLED, 1,
                    "cancelled: the turn was interrupted (turn_interrupted at seq 4) before the call started; nothing was run",
                    null, null, null));
            assertThat(recordNow(none(), end).resultFor(REQUEST).status()).isEqualTo(ToolStatus.CANCELLED);
        }

        @Test
        void givenARun_whenTheToolRefusesTheArgumentsBeforeStarting_thenAnErrorWithItsMessageIsRecorded() {
            Ended end = CallRules.intentFailed(new Run(WRITE_FILE, 1), "invalid argument 'path': absolute").outcome();

            assertThat(end).isEqualTo(new Ended(CallState.ERROR, 1, "invalid argument 'path': absolute", null, null, null));
        }

        @Test
        void givenARun_whenStartedThenRan_thenStartedHoldsTheIntent_andTheEndKeepsTheStartTimeAndTheIntentsHashes() {
            Run run = new Run(WRITE_FILE, 1);
            CallEntry started = fold(CallRules.started(run, new Intent(ABSENT, HELLO), KEY));

            assertThat(started.state()).isEqualTo(CallState.STARTED);
            assertThat(started.attempt()).isEqualTo(1);
            assertThat(started.startedAt()).isEqualTo(T0);
            assertThat(started.finishedAt()).isNull();
            assertThat(started.content()).isNull();
            assertThat(started.beforeHash()).isEqualTo(ABSENT);
            assertThat(started.afterHash()).isEqualTo(HELLO);
            assertThat(started.reportedEventId()).isNull();

            CallEntry ended = recordNow(Optional.of(started),
                    CallRules.ran(started, new ToolOutput(ToolOutput.Status.OK, "wrote a.txt", null, null, null)));

            assertThat(ended.state()).isEqualTo(CallState.OK);
            assertThat(ended.attempt()).isEqualTo(1);
            assertThat(ended.startedAt()).isEqualTo(T0);
            assertThat(ended.finishedAt()).isEqualTo(NOW);
            assertThat(ended.content()).isEqualTo("wrote a.txt");
            assertThat(ended.beforeHash()).isEqualTo(ABSENT);
            assertThat(ended.afterHash()).isEqualTo(HELLO);
            assertThat(ended.reportedEventId()).isEqualTo(CallRules.resultEventId(KEY));
        }

        @Test
        void givenAStartedRun_whenTheOutputHasHashesAndAnArtifact_thenTheyAreRecorded() {
            CallEntry started = fold(CallRules.started(new Run(WRITE_FILE, 1), new Intent(ABSENT, HELLO), KEY));

            Ended end = CallRules.ran(started, new ToolOutput(ToolOutput.Status.OK, "the first lines", ARTIFACT, "b", "c"));

            assertThat(end).isEqualTo(new Ended(CallState.OK, 1, "the first lines", ARTIFACT, "b", "c"));
            assertThat(recordNow(Optional.of(started), end).resultFor(REQUEST).artifact()).isEqualTo(ARTIFACT);
        }

        @ParameterizedTest
        @EnumSource(ToolOutput.Status.class)
        void givenAStartedRun_whenTheToolEndsWithAStatus_thenTheCallEndsInTheSameState(ToolOutput.Status status) {
            CallEntry started = fold(CallRules.started(new Run(WRITE_FILE, 1), Intent.NONE, KEY));

            Ended end = CallRules.ran(started, new ToolOutput(status, "out", null, null, null));

            assertThat(end.state().name()).isEqualTo(status.name());
            assertThat(end.beforeHash()).isNull();
            assertThat(end.afterHash()).isNull();
        }

        @Test
        void givenNoStartedEntry_whenTheToolIsSaidToHaveRun_thenTheRulesRefuse() {
            CallEntry ended = fold(new Ended(CallState.OK, 1, "done", null, null, null));

            assertThatThrownBy(() -> CallRules.ran(ended, new ToolOutput(ToolOutput.Status.OK, "again", null, null, null)))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    // --- 1b. interrupted turns ------------------------------------------------------------------------

    /**
     * A call whose turn was interrupted (an interruption after the event that asked for it, the seq in its key) never
     * starts, whatever its basis and wherever the interruption is: in the append that asked for the call (seq 4, before
     * any authorization), in a later one after the authorization (seq 6), or racing an approver's grant and its
     * authorization (seq 8, after both). The key is {@code s1/3/c1}: the call was asked for at seq 3.
     */
    @Nested
    class InterruptedTurns {

        /** POLICY, a session grant given before the turn (seq 2), an approver's grant of this call (seq 7). */
        static Stream<AuthorizationBasis> bases() {
            return Stream.of(AuthorizationBasis.POLICY, AuthorizationBasis.approval(2), AuthorizationBasis.approval(7));
        }

        static Stream<Arguments> basesAndInterruptions() {
            return bases().flatMap(basis -> Stream.of(4L, 6L, 8L).map(at -> Arguments.of(basis, at)));
        }

        private CallRequest requested(String key, long requestSeq, AuthorizationBasis basis) {
            return new CallRequest(key, "s1", "acme", "c1", "write_file", ARGUMENTS, requestSeq, ToolMode.WRITE, basis, AUTHORIZED_AT);
        }

        @ParameterizedTest(name = "basis {0}, interrupted at seq {1}")
        @MethodSource("basesAndInterruptions")
        void givenARun_whenTheTurnWasInterruptedAfterTheCallWasAskedFor_thenItEndsCancelled_withoutStarting(
                AuthorizationBasis basis, long interruptSeq) {
            Run run = new Run(WRITE_FILE, 1);

            Ended end = endOf(CallRules.beforeStart(run, requested(KEY, 3, basis), interruptSeq));

            assertThat(end.state()).isEqualTo(CallState.CANCELLED);
            assertThat(end.content()).contains("turn_interrupted at seq " + interruptSeq).contains("nothing was run");
            assertThat(end.beforeHash()).as("nothing was looked at").isNull();
        }

        @ParameterizedTest(name = "basis {0}")
        @MethodSource("bases")
        void givenARun_whenTheLatestInterruptionCameBeforeTheCallWasAskedFor_orThereIsNone_thenItGoesOn(AuthorizationBasis basis) {
            Run run = new Run(WRITE_FILE, 1);

            for (long interruptSeq : new long[] {0, 2, 3}) {
                assertThat(CallRules.beforeStart(run, requested(KEY, 3, basis), interruptSeq)).as("interrupted at %d", interruptSeq)
                        .isSameAs(run);
            }
        }

        @Test
        void givenARetryAPersonAskedForAfterTheInterruption_thenItRuns_butAnInterruptionAfterTheRetryStopsIt() {
            Run run = new Run(WRITE_FILE, 1);
            CallRequest retry = requested("s1/9/c1", 9, AuthorizationBasis.approval(9));

            assertThat(CallRules.beforeStart(run, retry, 6)).isSameAs(run);
            assertThat(endOf(CallRules.beforeStart(run, retry, 10)).state()).isEqualTo(CallState.CANCELLED);
        }

        @Test
        void givenAStartedCallReconciledAsNotDone_whenItsTurnWasInterruptedMeanwhile_thenItDoesNotRunAgain() {
            Step next = CallRules.reconciled(reconcile(ALLOWED), new Reconciliation.NotApplied());
            assertThat(next).isInstanceOf(Run.class);

            Ended end = endOf(CallRules.beforeStart((Run) next, REQUEST, 5));

            assertThat(end.state()).isEqualTo(CallState.CANCELLED);
            assertThat(end.attempt()).as("the handling that did not run it").isEqualTo(2);
        }
    }

    // --- 2. an ended call ----------------------------------------------------------------------------

    @Nested
    class EndedCall {

        @ParameterizedTest
        @MethodSource("dev.tether.executor.domain.CallRulesTest#endsAndVerdicts")
        void givenAnEndedEntry_whateverTheVerdict_thenItIsReportedAgain_andNothingIsRecordedOrRun(CallState state,
                                                                                               Authority.Verdict verdict) {
            CallEntry ended = fold(new Started(1, ABSENT, HELLO, KEY), new Ended(state, 1, "the end", null, ABSENT, HELLO));

            Step step = CallRules.decide(Optional.of(ended), REQUEST, verdict, Optional.empty());

            assertThat(step).isEqualTo(new ReportAgain(ended));
            assertThat(ended.resultFor(REQUEST).status()).isEqualTo(state.resultStatus());
            assertThat(ended.resultFor(REQUEST).content()).isEqualTo("the end");
        }

        @ParameterizedTest
        @EnumSource(value = CallState.class, names = "STARTED", mode = EnumSource.Mode.EXCLUDE)
        void givenAnEndedEntry_whenAnythingMoreIsRecorded_thenEvolveRefuses(CallState state) {
            Optional<CallEntry> ended = Optional.of(fold(new Ended(state, 1, "the end", null, null, null)));

            assertThatThrownBy(() -> recordNow(ended, new Started(2, null, null, KEY))).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> recordNow(ended, new Ended(CallState.OK, 2, "x", null, null, null)))
                    .isInstanceOf(IllegalStateException.class);
        }

        @Test
        void anEnd_cannotBeStarted() {
            assertThatThrownBy(() -> new Ended(CallState.STARTED, 1, "x", null, null, null))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    // --- 3. a call STARTED without an end -----------------------------------------------------------

    @Nested
    class StartedCall {

        @Test
        void givenAStartedEntry_whenTheAuthorityAllowsIt_thenItIsReconciledWithTheAllowedTool_asTheNextAttempt() {
            CallEntry started = started();

            Step step = CallRules.decide(Optional.of(started), REQUEST, ALLOWED, Optional.of(READ_FILE));

            assertThat(step).isEqualTo(new Reconcile(WRITE_FILE, started, ALLOWED));
            Reconcile reconcile = (Reconcile) step;
            assertThat(reconcile.attempt()).isEqualTo(2);
            assertThat(reconcile.entryFor(ARGUMENTS)).isEqualTo(new LedgerEntry(KEY, "write_file", ARGUMENTS, ABSENT, HELLO, 1));
        }

        @Test
        void givenAStartedEntry_whenTheAuthorityNowRefusesIt_butItsToolIsRegistered_thenItIsStillReconciled() {
            CallEntry started = started();

            Step step = CallRules.decide(Optional.of(started), REQUEST, REFUSED, Optional.of(WRITE_FILE));

            assertThat(step).isEqualTo(new Reconcile(WRITE_FILE, started, REFUSED));
        }

        @Test
        void givenAStartedEntry_whoseToolIsNoLongerRegistered_thenItIsUnknown_withTheHashesItStartedWith() {
            CallEntry started = started();
            var refused = new Authority.Refused("refused: tool 'write_file' is not available to WRITE sessions");

            Step step = CallRules.decide(Optional.of(started), REQUEST, refused, Optional.empty());

            assertThat(step).isEqualTo(new Conclude(new Ended(CallState.UNKNOWN, 2, unknownBecause(
                    "its tool is not registered here any more, so it cannot be reconciled; " + refused.reason()),
                    null, ABSENT, HELLO)));
            CallEntry entry = recordNow(Optional.of(started), endOf(step));
            assertThat(entry.startedAt()).isEqualTo(T0);
            assertThat(entry.finishedAt()).isEqualTo(NOW);
            assertThat(entry.executorId()).isEqualTo(EXECUTOR);
            assertThat(entry.resultFor(REQUEST).status()).isEqualTo(ToolStatus.UNKNOWN);
        }

        @Test
        void givenAStartedEntry_whenItsArgumentsAreNotJson_thenAnErrorIsRecorded_asTheNextAttempt_beforeReconciling() {
            Ended end = CallRules.argumentsNotJson(reconcile(ALLOWED)).outcome();

            assertThat(end).isEqualTo(new Ended(CallState.ERROR, 2, "invalid arguments: not JSON", null, null, null));
            assertThat(recordNow(Optional.of(started()), end).startedAt()).isEqualTo(T0);
        }

        @ParameterizedTest
        @MethodSource("dev.tether.executor.domain.CallRulesTest#verdicts")
        void givenAStartedEntry_whenReconciledCompleted_thenItsOutputIsRecorded_whateverTheVerdict(Authority.Verdict verdict) {
            var output = new ToolOutput(ToolOutput.Status.OK, "a.txt has the content the call writes", ARTIFACT, ABSENT, HELLO);

            Step step = CallRules.reconciled(reconcile(verdict), new Reconciliation.Completed(output));

            assertThat(step).isEqualTo(new Conclude(new Ended(CallState.OK, 2, output.content(), ARTIFACT, ABSENT, HELLO)));
            CallEntry entry = recordNow(Optional.of(started()), endOf(step));
            assertThat(entry.state()).isEqualTo(CallState.OK);
            assertThat(entry.attempt()).isEqualTo(2);
            assertThat(entry.startedAt()).isEqualTo(T0);
            assertThat(entry.artifact()).isEqualTo(ARTIFACT);
        }

        @Test
        void givenAStartedEntry_whenReconciledCompletedWithoutHashes_thenNoneAreRecorded() {
            var output = new ToolOutput(ToolOutput.Status.ERROR, "ticket T-41 failed", null, null, null);

            Step step = CallRules.reconciled(reconcile(ALLOWED), new Reconciliation.Completed(output));

            assertThat(step).isEqualTo(new Conclude(new Ended(CallState.ERROR, 2, "ticket T-41 failed", null, null, null)));
        }

        @ParameterizedTest
        @MethodSource("dev.tether.executor.domain.CallRulesTest#verdicts")
        void givenAStartedEntry_whenReconciledUnknown_thenItIsUnknown_andNotRunAgain_whateverTheVerdict(Authority.Verdict verdict) {
            Step step = CallRules.reconciled(reconcile(verdict), new Reconciliation.Unknown("a.txt changed by someone else"));

            assertThat(step).isEqualTo(new Conclude(new Ended(CallState.UNKNOWN, 2,
                    unknownBecause("a.txt changed by someone else"), null, ABSENT, HELLO)));
        }

        @Test
        void givenAStartedEntry_whenReconciledNotApplied_andTheAuthorityAllowsIt_thenItRunsNow_asTheNextAttempt() {
            Step step = CallRules.reconciled(reconcile(ALLOWED), new Reconciliation.NotApplied());

            assertThat(step).isEqualTo(new Run(WRITE_FILE, 2));
        }

        @Test
        void givenAStartedEntry_whenReconciledNotApplied_andTheAuthorityNowRefusesIt_thenItIsRefused_notRun() {
            Step step = CallRules.reconciled(reconcile(REFUSED), new Reconciliation.NotApplied());

            assertThat(step).isEqualTo(new Conclude(new Ended(CallState.ERROR, 2, REASON, null, null, null)));
        }

        @Test
        void aReconcileStep_isOnlyForAStartedEntry() {
            CallEntry ended = fold(new Ended(CallState.OK, 1, "done", null, null, null));

            assertThatThrownBy(() -> new Reconcile(WRITE_FILE, ended, ALLOWED)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    // --- 4. attempts ---------------------------------------------------------------------------------

    @Nested
    class Attempts {

        @Test
        void givenACallStartedTheMostTimesWithoutEnding_whenReconciledNotApplied_thenItIsUnknown_notRunAgain() {
            CallEntry startedOften = fold(new Started(CallRules.MAX_STARTS, ABSENT, HELLO, KEY));
            var reconcile = (Reconcile) CallRules.decide(Optional.of(startedOften), REQUEST, ALLOWED, Optional.of(WRITE_FILE));

            Step step = CallRules.reconciled(reconcile, new Reconciliation.NotApplied());

            assertThat(step).isEqualTo(new Conclude(new Ended(CallState.UNKNOWN, CallRules.MAX_STARTS + 1, unknownBecause("it was started "
                    + CallRules.MAX_STARTS + " times and never ended, so it may be what stops the executor"), null, ABSENT, HELLO)));
        }

        @Test
        void givenACallStartedFewerTimesThanTheMost_whenReconciledNotApplied_thenItRunsAgain() {
            CallEntry started = fold(new Started(CallRules.MAX_STARTS - 1, ABSENT, HELLO, KEY));
            var reconcile = (Reconcile) CallRules.decide(Optional.of(started), REQUEST, ALLOWED, Optional.of(WRITE_FILE));

            assertThat(CallRules.reconciled(reconcile, new Reconciliation.NotApplied())).isEqualTo(new Run(WRITE_FILE, CallRules.MAX_STARTS));
        }

        @Test
        void givenAWorkspaceThatCannotBeMade_thenARunIsAnErrorWithoutStarting_andAStartedCallIsUnknown() {
            assertThat(CallRules.noWorkspace(new Run(WRITE_FILE, 1), "UncheckedIOException")).isEqualTo(new Conclude(Ended.of(
                    CallState.ERROR, 1, "its session's workspace cannot be made (UncheckedIOException); nothing was run")));
            assertThat(CallRules.noWorkspace(reconcile(ALLOWED), "UncheckedIOException")).isEqualTo(new Conclude(new Ended(
                    CallState.UNKNOWN, 2, unknownBecause("its session's workspace cannot be made (UncheckedIOException)"), null, ABSENT,
                    HELLO)));
        }

        @Test
        void givenCrashesWhileRunning_whenTheCallComesAgainEachTime_thenEveryHandlingIsTheNextAttempt() {
            // attempt 1 started and died; reconciled not done, so attempt 2 runs, starts, and dies too
            CallEntry first = fold(CallRules.started(new Run(WRITE_FILE, 1), new Intent(ABSENT, HELLO), KEY));
            Step second = CallRules.reconciled(reconcile(ALLOWED), new Reconciliation.NotApplied());
            assertThat(second).isEqualTo(new Run(WRITE_FILE, 2));
            CallEntry secondStarted = CallRules.evolve(Optional.of(first), new Recorded(REQUEST, BEFORE_CRASH,
                    T0.plusSeconds(10), CallRules.started((Run) second, new Intent(ABSENT, HELLO), KEY)));
            assertThat(secondStarted.attempt()).isEqualTo(2);
            assertThat(secondStarted.startedAt()).isEqualTo(T0.plusSeconds(10));

            // attempt 3 finds it done
            Step third = CallRules.decide(Optional.of(secondStarted), REQUEST, ALLOWED, Optional.of(WRITE_FILE));
            assertThat(((Reconcile) third).attempt()).isEqualTo(3);
            assertThat(((Reconcile) third).entryFor(ARGUMENTS).attempt()).isEqualTo(2);
            Step done = CallRules.reconciled((Reconcile) third, new Reconciliation.Completed(
                    new ToolOutput(ToolOutput.Status.OK, "done", null, ABSENT, HELLO)));
            CallEntry ended = recordNow(Optional.of(secondStarted), endOf(done));

            assertThat(ended.attempt()).isEqualTo(3);
            assertThat(ended.startedAt()).isEqualTo(T0.plusSeconds(10));
            assertThat(CallRules.decide(Optional.of(ended), REQUEST, ALLOWED, Optional.of(WRITE_FILE)))
                    .isEqualTo(new ReportAgain(ended));
        }

        @Test
        void givenAFoldOfOutcomes_thenTheEntryIsTheLatest_andItsAttemptIsTheLatestOutcomes() {
            CallEntry entry = fold(new Started(1, ABSENT, HELLO, KEY), new Started(2, ABSENT, HELLO, KEY),
                    new Ended(CallState.UNKNOWN, 3, "unknown", null, ABSENT, HELLO));

            assertThat(entry.state()).isEqualTo(CallState.UNKNOWN);
            assertThat(entry.attempt()).isEqualTo(3);
            assertThat(entry.startedAt()).isEqualTo(T0.plusSeconds(1));
            assertThat(entry.finishedAt()).isEqualTo(T0.plusSeconds(2));
        }

        @Test
        void theKeyAStartHandedTheTool_isKeptByItsEnd_andIsTheOneAReconciliationLooksUp() {
            String handed = KEY + "~1796114809377";
            CallEntry started = fold(new Started(1, ABSENT, HELLO, handed));
            CallEntry ended = fold(new Started(1, ABSENT, HELLO, handed), new Ended(CallState.OK, 1, "done", null, ABSENT, HELLO));

            assertThat(started.handedKey()).isEqualTo(handed);
            assertThat(ended.externalKey()).as("an end keeps its start's").isEqualTo(handed);
            assertThat(new Reconcile(WRITE_FILE, started, ALLOWED).entryFor(ARGUMENTS).idempotencyKey()).isEqualTo(handed);
            assertThat(((Conclude) CallRules.reconciled(new Reconcile(WRITE_FILE, started, ALLOWED), new Reconciliation.Unknown("who knows")))
                    .outcome()).extracting(o -> ((Ended) o).content()).asString()
                    .as("a person deciding an unknown outcome is told the key to look up").endsWith("for other systems: " + handed + ").");
            assertThat(recordNow(none(), new Ended(CallState.ERROR, 1, "refused", null, null, null)).externalKey())
                    .as("never started: nothing was handed out").isNull();
            CallEntry ofAnExecutorBeforeIt = new CallEntry(KEY, "s1", "acme", "c1", "write_file", CallState.STARTED, 1, "old-executor",
                    T0, null, null, null, ABSENT, HELLO, null, null);
            assertThat(new Reconcile(WRITE_FILE, ofAnExecutorBeforeIt, ALLOWED).entryFor(ARGUMENTS).idempotencyKey())
                    .as("a start of an executor before it handed the call's key").isEqualTo(KEY);
        }

        @Test
        void theResultEventId_isDerivedFromTheKeyAlone() {
            assertThat(CallRules.resultEventId(KEY)).isEqualTo(CallRules.resultEventId("s1/3/c1"));
            assertThat(CallRules.resultEventId(KEY)).isNotEqualTo(CallRules.resultEventId("s1/3/c2"));
            assertThat(recordNow(none(), new Ended(CallState.OK, 1, "x", null, null, null)).reportedEventId())
                    .isEqualTo(fold(new Started(1, null, null, KEY), new Ended(CallState.OK, 7, "y", null, null, null))
                            .reportedEventId());
        }
    }

    // --- 5. no type goes unhandled -------------------------------------------------------------------

    @Nested
    class EveryType {

        /** The records under a sealed type, through its sealed sub-interfaces. */
        private static List<Class<?>> leaves(Class<?> sealed) {
            assertThat(sealed.isSealed()).as("%s is sealed", sealed.getSimpleName()).isTrue();
            var leaves = new ArrayList<Class<?>>();
            for (Class<?> type : sealed.getPermittedSubclasses()) {
                if (type.isInterface()) {
                    leaves.addAll(leaves(type));
                } else {
                    leaves.add(type);
                }
            }
            return leaves;
        }

        @Test
        void everyStep_isReachedByARule() {
            var reached = new HashSet<Class<?>>();
            reached.add(CallRules.decide(none(), REQUEST, ALLOWED, Optional.empty()).getClass());
            reached.add(CallRules.decide(none(), REQUEST, REFUSED, Optional.empty()).getClass());
            reached.add(CallRules.decide(Optional.of(started()), REQUEST, ALLOWED, Optional.empty()).getClass());
            reached.add(CallRules.decide(Optional.of(fold(new Ended(CallState.OK, 1, "x", null, null, null))), REQUEST,
                    ALLOWED, Optional.empty()).getClass());
            reached.add(CallRules.decide(none(), new CallRequest(KEY, "s1", "acme", "c1", "write_file", ARGUMENTS, 3, ToolMode.WRITE,
                    AuthorizationBasis.POLICY, dev.tether.core.event.CallRunner.HARNESS, AUTHORIZED_AT), ALLOWED, Optional.empty()).getClass());

            List<Class<?>> steps = leaves(Step.class);
            assertThat(steps).containsExactlyInAnyOrder(ReportAgain.class, Conclude.class, Reconcile.class, Run.class, Step.NotOurs.class);
            assertThat(reached).containsExactlyInAnyOrderElementsOf(steps);
        }

        @Test
        void everyStepThatCallsTheTool_endsWhenItsArgumentsAreNotJson() {
            var softly = new SoftAssertions();
            for (Class<?> type : leaves(Step.CallsTool.class)) {
                Step.CallsTool step = type == Reconcile.class ? reconcile(ALLOWED) : new Run(WRITE_FILE, 1);
                softly.assertThat(step).as(type.getSimpleName()).isInstanceOf(type);
                softly.assertThat(CallRules.argumentsNotJson(step).outcome().state()).as(type.getSimpleName())
                        .isEqualTo(CallState.ERROR);
            }
            softly.assertAll();
        }

        @Test
        void everyVerdict_isDecided_forANewAndForAStartedCall() {
            var softly = new SoftAssertions();
            for (Class<?> type : leaves(Authority.Verdict.class)) {
                Authority.Verdict verdict = type == Authority.Allowed.class ? ALLOWED : REFUSED;
                softly.assertThat(verdict).as(type.getSimpleName()).isInstanceOf(type);
                for (Optional<CallEntry> known : List.of(none(), Optional.of(started()))) {
                    for (Optional<Tool> registered : List.of(Optional.of(WRITE_FILE), Optional.<Tool>empty())) {
                        try {
                            softly.assertThat(CallRules.decide(known, REQUEST, verdict, registered)).isNotNull();
                        } catch (RuntimeException e) {
                            softly.fail("decide does not handle %s: %s", type.getSimpleName(), e);
                        }
                    }
                }
            }
            softly.assertAll();
        }

        @Test
        void everyReconciliation_meansAConclusionOrARun_underEveryVerdict() {
            var softly = new SoftAssertions();
            var walked = new ArrayList<String>();
            for (Class<?> type : leaves(Reconciliation.class)) {
                Reconciliation found = type == Reconciliation.Completed.class
                        ? new Reconciliation.Completed(new ToolOutput(ToolOutput.Status.OK, "done", null, null, null))
                        : type == Reconciliation.Unknown.class ? new Reconciliation.Unknown("cannot tell")
                        : new Reconciliation.NotApplied();
                softly.assertThat(found).as(type.getSimpleName()).isInstanceOf(type);
                verdicts().forEach(verdict -> {
                    try {
                        softly.assertThat(CallRules.reconciled(reconcile(verdict), found))
                                .isInstanceOfAny(Conclude.class, Run.class);
                    } catch (RuntimeException e) {
                        softly.fail("reconciled does not handle %s: %s", type.getSimpleName(), e);
                    }
                });
                walked.add(type.getSimpleName());
            }
            softly.assertThat(walked).containsExactlyInAnyOrder("Completed", "NotApplied", "Unknown");
            softly.assertAll();
        }

        @Test
        void everyOutcome_isFoldedByEvolve_fromNothingAndFromStarted() {
            var softly = new SoftAssertions();
            for (Class<?> type : leaves(CallOutcome.class)) {
                CallOutcome outcome = type == Started.class
                        ? new Started(2, ABSENT, HELLO, KEY)
                        : new Ended(CallState.OK, 2, "done", null, ABSENT, HELLO);
                softly.assertThat(outcome).as(type.getSimpleName()).isInstanceOf(type);
                for (Optional<CallEntry> entry : List.of(none(), Optional.of(started()))) {
                    try {
                        CallEntry next = recordNow(entry, outcome);
                        softly.assertThat(next.attempt()).as(type.getSimpleName()).isEqualTo(2);
                        softly.assertThat(next.state().ended()).as(type.getSimpleName()).isEqualTo(type == Ended.class);
                        softly.assertThat(next.executorId()).isEqualTo(EXECUTOR);
                    } catch (RuntimeException e) {
                        softly.fail("evolve does not fold %s: %s", type.getSimpleName(), e);
                    }
                }
            }
            softly.assertAll();
        }

        @Test
        void everyCallState_isReportedWithAStatus_andEveryToolStatusEndsACall() {
            Set<ToolStatus> reported = new HashSet<>();
            for (CallState state : CallState.values()) {
                reported.add(state.resultStatus());
            }
            assertThat(reported).containsExactlyInAnyOrder(ToolStatus.values());
            assertThat(CallState.STARTED.resultStatus()).isEqualTo(ToolStatus.UNKNOWN);
            for (ToolOutput.Status status : ToolOutput.Status.values()) {
                assertThat(CallState.of(status).ended()).as(status.name()).isTrue();
            }
        }
    }
}
