package dev.tether.executor.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.avro.AuthorizationBasis;
import dev.tether.avro.AuthorizationBasisKind;
import dev.tether.avro.OutcomeState;
import dev.tether.avro.SessionCommand;
import dev.tether.avro.ToolMode;
import dev.tether.avro.ToolOutcome;
import dev.tether.avro.ToolRequest;
import dev.tether.core.blob.BlobOffloader;
import dev.tether.core.blob.LocalBlobStore;
import dev.tether.core.policy.GatingPolicy;
import dev.tether.executor.domain.Authority;
import dev.tether.executor.domain.CallRules;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.tools.HttpFetchPolicy;
import dev.tether.tools.Intent;
import dev.tether.tools.LedgerEntry;
import dev.tether.tools.Reconciliation;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.tools.Tool;
import dev.tether.tools.ToolContext;
import dev.tether.tools.ToolOutput;
import dev.tether.tools.ToolRegistry;
import dev.tether.tools.sandbox.CommandRunner;
import dev.tether.tools.sandbox.Isolation;
import dev.tether.tools.sandbox.MapSecretProvider;
import dev.tether.tools.sandbox.RunnerConfig;
import dev.tether.tools.sandbox.SandboxUser;
import dev.tether.tools.sandbox.WorkspaceRoot;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The rules of one call, with the writes captured by Kafka's {@link MockProducer} (no broker): what is written, in
 * which order, and what the workspace looks like after.
 */
class CallHandlerTest {

    private static final TopicLayout LAYOUT = TopicLayout.local();
    private static final String SESSION = "s1";

    @TempDir
    Path dir;

    private final MockProducer<String, SpecificRecord> producer =
            new MockProducer<>(true, null, new StringSerializer(), (Serializer<SpecificRecord>) (topic, value) -> new byte[0]);
    /** {@code tool-outcomes} before the call is handled; the handler's writes go to the producer. */
    private final MemoryOutcomeLog outcomes = new MemoryOutcomeLog(1);
    private final Ledger ledger = new Ledger(outcomes, new AckedWriter(producer, new FencedWritesDouble(producer), LAYOUT),
            new Ledger.Settings(20_000, Duration.ofMinutes(1)), Clock.fixed(Instant.parse("2026-11-29T10:00:00Z"), ZoneOffset.UTC));
    private final InFlight inFlight = new InFlight();
    /** The watcher's catch-up: here the interruptions a test tells {@link #inFlight} of are all there are. */
    private InterruptWatcher.CatchUp catchUp = (sessionId, requestedAt) -> {};

    private static final ToolRegistry BUILT_INS = ToolRegistry.builder().addBuiltIns(HttpFetchPolicy.denyAll()).build();
    private static final GatingPolicy COMMANDS_GATED = GatingPolicy.of("run_command", Map.of(), BUILT_INS.names());

    private CallHandler handler() {
        return handler(BUILT_INS, COMMANDS_GATED, Map.of());
    }

    private CallHandler handler(ToolRegistry registry, GatingPolicy policy, Map<String, String> secrets) {
        var runner = new CommandRunner(RunnerConfig.defaults().withSandboxUser(SandboxUser.current().isRoot()
                ? SandboxUser.NOBODY : SandboxUser.current()), Isolation.Unavailable.because("not needed by these tests"));
        var authority = new Authority(registry, policy);
        var sandbox = new Sandbox(new WorkspaceRoot(dir.resolve("ws"), SandboxUser.current()), runner,
                new MapSecretProvider(secrets), new BlobOffloader(new LocalBlobStore(dir.resolve("blobs"))));
        return new CallHandler(ledger, new AckedWriter(producer, new FencedWritesDouble(producer), LAYOUT), authority, sandbox, inFlight,
                catchUp, CrashPoints.none(),
                "executor-1", Clock.fixed(Instant.parse("2026-11-29T10:00:00Z"), ZoneOffset.UTC));
    }

    /** What was written, in order: a ledger entry's state, or {@code command} for a {@code tool_result}. */
    private List<String> written() {
        return producer.history().stream()
                .map(r -> r.value() instanceof ToolOutcome o ? o.getState().name() : "command").toList();
    }

    @Test
    void aNewCall_writesStartedBeforeTheEffect_thenTheOutcome_thenOneToolResult() throws Exception {
        handler().handle(request("c1", "write_file", "{\"path\":\"a.txt\",\"content\":\"hello\"}", ToolMode.WRITE, POLICY));

        List<ProducerRecord<String, SpecificRecord>> sent = producer.history();
        assertThat(sent).extracting(ProducerRecord::topic).containsExactly("tool-outcomes", "tool-outcomes", "session-commands");
        ToolOutcome started = (ToolOutcome) sent.get(0).value();
        ToolOutcome ended = (ToolOutcome) sent.get(1).value();
        assertThat(started.getState()).isEqualTo(OutcomeState.STARTED);
        assertThat(started.getBeforeHash()).isEqualTo(ABSENT);
        assertThat(started.getAfterHash()).isEqualTo(sha256("hello"));
        assertThat(started.getFinishedAt()).isNull();
        assertThat(ended.getState()).isEqualTo(OutcomeState.OK);
        assertThat(ended.getReportedEventId()).isEqualTo(CallRules.resultEventId(key("c1")));
        assertThat(sent.get(0).key()).isEqualTo(key("c1"));
        assertThat(sent.get(2).key()).isEqualTo(SESSION);
        SessionCommand command = (SessionCommand) sent.get(2).value();
        assertThat(command.getPrincipal().getId()).isEqualTo("tool-executor");
        assertThat(command.getPrincipal().getRoles()).containsExactly("service");
        var event = command.getPayload().getAppendEvents().getEvents().get(0);
        assertThat(event.getEventId()).isEqualTo(CallRules.resultEventId(key("c1")));
        assertThat(event.getType()).isEqualTo("tool_result");
        assertThat(Files.readString(dir.resolve("ws").resolve(SESSION).resolve("a.txt"))).isEqualTo("hello");
    }

    /**
     * The approval-service checked the call's path against the grant's glob when it authorized it; a command the session
     * ran since may have made a link that leads the same path elsewhere. The executor checks again right before the call
     * starts, in the workspace as it is then.
     */
    @Test
    void aCallAGlobGrantAuthorized_whosePathNowLeadsOutOfTheGlobThroughALink_endsAnErrorWithoutStarting() throws Exception {
        var handler = handler();
        handler.handle(request("c1", "write_file", "{\"path\":\"src/a.java\",\"content\":\"a\"}", ToolMode.WRITE, POLICY));
        Path workspace = dir.resolve("ws").resolve(SESSION);
        Files.createDirectories(workspace.resolve("test"));
        Files.createSymbolicLink(workspace.resolve("src/link"), Path.of("../test"));
        producer.clear();
        var grant = new AuthorizationBasis(AuthorizationBasisKind.APPROVAL, 2L, "src/**", null);

        handler.handle(request("c2", "write_file", "{\"path\":\"src/link/x.java\",\"content\":\"x\"}", ToolMode.WRITE, grant));

        assertThat(written()).as("never STARTED").containsExactly("ERROR", "command");
        assertThat(((ToolOutcome) producer.history().get(0).value()).getContent())
                .contains("the session grant at seq 2", "'src/**'", "'src/link/x.java' leads outside it now");
        assertThat(workspace.resolve("test/x.java")).doesNotExist();
        producer.clear();

        handler.handle(request("c3", "write_file", "{\"path\":\"src/b.java\",\"content\":\"b\"}", ToolMode.WRITE, grant));

        assertThat(written()).as("a path the glob covers runs").containsExactly("STARTED", "OK", "command");
        assertThat(workspace.resolve("src/b.java")).hasContent("b");
    }

    /**
     * The approver was shown the call's diff against the workspace when the approval was asked for; another call of the
     * session may have changed the file before the grant came. The approval carries the hash of what was shown, and the
     * executor works it out again right before the call starts: a call that would now do something else is refused.
     */
    @Test
    void anApprovedCall_whoseFileChangedSinceTheApproverWasShownIt_endsAnErrorWithoutStarting_andOneStillAsShownRuns() throws Exception {
        var handler = handler();
        Path workspace = dir.resolve("ws").resolve(SESSION);
        Files.createDirectories(workspace);
        Files.writeString(workspace.resolve("a.txt"), "before\n");
        String arguments = "{\"path\":\"a.txt\",\"content\":\"approved\\n\"}";
        Tool tool = ToolRegistry.builtIn(List.of()).forMode(dev.tether.core.event.ToolMode.WRITE).find("write_file").orElseThrow();
        var workspaceNow = new WorkspaceRoot(dir.resolve("ws"), SandboxUser.current()).open("acme", SESSION); // as the executor opens it
        String shown = tool.shown(workspaceNow, new ObjectMapper().readTree(arguments)); // what the approval-service showed
        var approval = new AuthorizationBasis(AuthorizationBasisKind.APPROVAL, 2L, null, Tool.shownSha256(shown));
        Files.writeString(workspace.resolve("a.txt"), "another call's line\n"); // before the grant came

        handler.handle(request("c1", "write_file", arguments, ToolMode.WRITE, approval));

        assertThat(written()).as("never STARTED").containsExactly("ERROR", "command");
        assertThat(((ToolOutcome) producer.history().get(0).value()).getContent())
                .contains("the call would no longer do what its approver was shown when the approval at seq 2 was given");
        assertThat(workspace.resolve("a.txt")).hasContent("another call's line\n");
        producer.clear();

        Files.writeString(workspace.resolve("a.txt"), "before\n");
        handler.handle(request("c2", "write_file", arguments, ToolMode.WRITE, approval));

        assertThat(written()).as("the call as shown runs").containsExactly("STARTED", "OK", "command");
        assertThat(workspace.resolve("a.txt")).hasContent("approved\n");
    }

    @Test
    void aCallAuthorizedByAGlobThisExecutorCannotRead_orWithoutAPath_endsAnErrorWithoutStarting() {
        var handler = handler();

        handler.handle(request("c1", "write_file", "{\"path\":\"src/a.java\",\"content\":\"a\"}", ToolMode.WRITE,
                new AuthorizationBasis(AuthorizationBasisKind.APPROVAL, 2L, "src/{a,b}.java", null)));
        handler.handle(request("c2", "run_command", "{\"command\":\"touch src/c.java\"}", ToolMode.WRITE,
                new AuthorizationBasis(AuthorizationBasisKind.APPROVAL, 2L, "src/**", null)));

        assertThat(written()).containsExactly("ERROR", "command", "ERROR", "command");
        assertThat(((ToolOutcome) producer.history().get(0).value()).getContent()).contains("a glob this executor cannot read");
        assertThat(((ToolOutcome) producer.history().get(2).value()).getContent()).contains("the call has no path");
        assertThat(dir.resolve("ws").resolve(SESSION).resolve("src")).doesNotExist();
    }

    @Test
    void aFinishedCall_isReportedAgainWithTheSameEventId_andNotRun() throws Exception {
        var handler = handler();
        var request = request("c1", "write_file", "{\"path\":\"a.txt\",\"content\":\"hello\"}", ToolMode.WRITE, POLICY);
        handler.handle(request);
        Files.writeString(dir.resolve("ws").resolve(SESSION).resolve("a.txt"), "changed since");
        producer.clear();

        handler.handle(request);

        assertThat(producer.history()).extracting(ProducerRecord::topic).containsExactly("session-commands");
        var event = ((SessionCommand) producer.history().get(0).value()).getPayload().getAppendEvents().getEvents().get(0);
        assertThat(event.getEventId()).isEqualTo(CallRules.resultEventId(key("c1")));
        assertThat(Files.readString(dir.resolve("ws").resolve(SESSION).resolve("a.txt"))).isEqualTo("changed since");
    }

    @Test
    void aHarnessRunCallsRequest_isNeitherRunNorRecordedNorAnswered_whetherTheAuthorityWouldAllowOrRefuseIt() {
        var handler = handler();
        for (ToolMode mode : ToolMode.values()) {
            var request = request("c-" + mode, "write_file", "{\"path\":\"a.txt\",\"content\":\"x\"}", mode, POLICY);
            request.setRunBy(dev.tether.avro.CallRunner.HARNESS);

            handler.handle(request);
        }

        assertThat(producer.history()).as("no ledger record, no tool_result").isEmpty();
        assertThat(dir.resolve("ws").resolve(SESSION).resolve("a.txt")).doesNotExist();
    }

    @Test
    void aRequestOfAnErasedSession_whoseKeyALaterSessionUnderItsIdHasUsed_isNeitherRunNorRecordedNorAnswered() {
        var request = request("c1", "write_file", "{\"path\":\"a.txt\",\"content\":\"the erased session's\"}", ToolMode.WRITE, POLICY);
        Instant later = request.getRequestedAt().plusSeconds(40);
        outcomes.append(ToolOutcome.newBuilder().setIdempotencyKey(key("c1")).setSessionId(SESSION).setTenantId("acme").setCallId("c1")
                .setTool("write_file").setState(OutcomeState.OK).setAttempt(1).setExecutorId("executor-1").setStartedAt(later)
                .setFinishedAt(later).setContent("the later session's").setRequestedAt(later).build(), later);

        handler().handle(request); // redelivered after the later session's call ran

        assertThat(producer.history()).as("no ledger record, no tool_result").isEmpty();
        assertThat(dir.resolve("ws").resolve(SESSION).resolve("a.txt")).doesNotExist();
    }

    @Test
    void anErasure_writesTheCallsRecordAgainWithoutItsOutput_keepingItsState_andRunsAndReportsNothing() {
        var request = request("c1", "write_file", "{\"path\":\"a.txt\",\"content\":\"the erased session's\"}", ToolMode.WRITE, POLICY);
        ToolOutcome ended = ToolOutcome.newBuilder(started(request, ABSENT, sha256("the erased session's")))
                .setState(OutcomeState.OK).setFinishedAt(Instant.parse("2026-11-29T09:59:31Z")).setContent("wrote a.txt: the erased session's")
                .setContentRef(new dev.tether.avro.BlobRef("blob:acme/ab12", "ab12", 4096L, "the erased session's"))
                .setReportedEventId(CallRules.resultEventId(key("c1"))).setRequestedAt(request.getRequestedAt()).build();
        outcomes.append(ended, Instant.parse("2026-11-29T09:59:31Z"));
        Instant erasedAt = Instant.parse("2026-11-29T09:59:50Z");

        handler().handle(erasure(request, erasedAt));

        assertThat(producer.history()).extracting(ProducerRecord::topic, ProducerRecord::key).containsExactly(
                org.assertj.core.groups.Tuple.tuple("tool-outcomes", key("c1")));
        ToolOutcome erased = (ToolOutcome) producer.history().get(0).value();
        assertThat(erased.getContent()).isNull();
        assertThat(erased.getContentRef()).isNull();
        assertThat(erased.getBeforeHash()).isNull();
        assertThat(erased.getAfterHash()).isNull();
        assertThat(erased.getErasedAt()).isEqualTo(erasedAt);
        assertThat(erased.getState()).as("an erased session's request, come again, runs nothing").isEqualTo(OutcomeState.OK);
        assertThat(erased.getRequestedAt()).isEqualTo(request.getRequestedAt());
        assertThat(erased.getAttempt()).isEqualTo(1);
        assertThat(erased.getReportedEventId()).isEqualTo(ended.getReportedEventId());
        assertThat(erased.getExecutorId()).isEqualTo("executor-1");
        assertThat(dir.resolve("ws").resolve(SESSION).resolve("a.txt")).doesNotExist();
    }

    @Test
    void anErasure_ofACallOnlyStarted_ofALaterSessionsCall_orAlreadyDone_writesNothing_andReconcilesNothing() throws Exception {
        var request = request("c1", "write_file", "{\"path\":\"a.txt\",\"content\":\"hello\"}", ToolMode.WRITE, POLICY);
        outcomes.append(started(request, ABSENT, sha256("hello")));
        var later = request("c2", "read_file", "{\"path\":\"a.txt\"}", ToolMode.WRITE, POLICY);
        Instant laterAt = later.getRequestedAt().plusSeconds(40);
        outcomes.append(ToolOutcome.newBuilder(started(later, null, null)).setState(OutcomeState.OK).setFinishedAt(laterAt)
                .setContent("the later session's").setRequestedAt(laterAt).build(), laterAt);
        var done = request("c3", "read_file", "{\"path\":\"a.txt\"}", ToolMode.WRITE, POLICY);
        outcomes.append(ToolOutcome.newBuilder(started(done, null, null)).setState(OutcomeState.OK).setFinishedAt(done.getRequestedAt())
                .setRequestedAt(done.getRequestedAt()).setErasedAt(done.getRequestedAt().plusSeconds(5)).build(), done.getRequestedAt().plusSeconds(6));
        var handler = handler();

        for (ToolRequest call : List.of(request, later, done)) {
            handler.handle(erasure(call, call.getRequestedAt().plusSeconds(10)));
        }

        assertThat(producer.history()).as("no ledger record, no tool_result").isEmpty();
        assertThat(dir.resolve("ws").resolve(SESSION).resolve("a.txt")).as("the STARTED write is not reconciled, so not run").doesNotExist();
    }

    @Test
    void aCallOfASessionErasedSinceItWasAuthorized_isRecordedCancelledWithoutStarting_norItsWorkspaceMadeAgain_andNothingIsReported() {
        inFlight.erased(SESSION, Instant.parse("2026-11-29T09:59:30Z"));
        var handler = handler();

        handler.handle(request("c1", "write_file", "{\"path\":\"a.txt\",\"content\":\"hello\"}", ToolMode.WRITE, POLICY));
        handler.handle(request("c2", "write_file", "{\"path\":\"a.txt\",\"content\":\"x\"}", ToolMode.READ_ONLY, POLICY)); // refused

        assertThat(written()).as("recorded, never STARTED, never reported").containsExactly("CANCELLED", "ERROR");
        assertThat(((ToolOutcome) producer.history().get(0).value()).getContent()).contains("the session was erased");
        assertThat(dir.resolve("ws").resolve(SESSION)).doesNotExist();
    }

    @Test
    void aStartedCallOfAnErasedSession_isNotReconciled_norRecordedNorReported() throws Exception {
        var request = request("c1", "write_file", "{\"path\":\"a.txt\",\"content\":\"hello\"}", ToolMode.WRITE, POLICY);
        outcomes.append(started(request, ABSENT, sha256("hello")));
        inFlight.erased(SESSION, Instant.parse("2026-11-29T09:59:30Z"));

        handler().handle(request);

        assertThat(producer.history()).isEmpty();
        assertThat(dir.resolve("ws").resolve(SESSION)).doesNotExist();
    }

    @Test
    void aCallAuthorizedAfterAnErasureOfItsSessionsId_runsAndIsReported_asASessionMadeAgainUnderItsIds() throws Exception {
        inFlight.erased(SESSION, Instant.parse("2026-11-29T09:58:59Z"));

        handler().handle(request("c1", "write_file", "{\"path\":\"a.txt\",\"content\":\"hello\"}", ToolMode.WRITE, POLICY));

        assertThat(written()).containsExactly("STARTED", "OK", "command");
        assertThat(Files.readString(dir.resolve("ws").resolve(SESSION).resolve("a.txt"))).isEqualTo("hello");
    }

    @Test
    void aRefusedCall_isRecordedAsError_withoutStarted() {
        handler().handle(request("c1", "write_file", "{\"path\":\"a.txt\",\"content\":\"x\"}", ToolMode.READ_ONLY, POLICY));

        assertThat(producer.history()).extracting(ProducerRecord::topic).containsExactly("tool-outcomes", "session-commands");
        ToolOutcome outcome = (ToolOutcome) producer.history().get(0).value();
        assertThat(outcome.getState()).isEqualTo(OutcomeState.ERROR);
        assertThat(outcome.getContent()).contains("not available to READ_ONLY sessions");
        assertThat(dir.resolve("ws").resolve(SESSION).resolve("a.txt")).doesNotExist();
    }

    @Test
    void aStartedCallWithoutAnEnd_whoseFileIsAtItsAfterHash_isRecordedDone_andNotWrittenAgain() throws Exception {
        var request = request("c1", "write_file", "{\"path\":\"a.txt\",\"content\":\"hello\"}", ToolMode.WRITE, POLICY);
        Path ws = Files.createDirectories(dir.resolve("ws").resolve(SESSION));
        Files.writeString(ws.resolve("a.txt"), "hello"); // the effect happened, then the executor died
        long modified = Files.getLastModifiedTime(ws.resolve("a.txt")).toMillis();
        outcomes.append(started(request, ABSENT, sha256("hello")));

        handler().handle(request);

        ToolOutcome outcome = (ToolOutcome) producer.history().get(0).value();
        assertThat(outcome.getState()).isEqualTo(OutcomeState.OK);
        assertThat(outcome.getAttempt()).isEqualTo(2);
        assertThat(Files.getLastModifiedTime(ws.resolve("a.txt")).toMillis()).isEqualTo(modified);
        assertThat(producer.history()).extracting(ProducerRecord::topic).containsExactly("tool-outcomes", "session-commands");
    }

    @Test
    void aStartedCallWithoutAnEnd_whoseFileIsAtItsBeforeHash_runsNow() throws Exception {
        var request = request("c1", "write_file", "{\"path\":\"a.txt\",\"content\":\"hello\"}", ToolMode.WRITE, POLICY);
        outcomes.append(started(request, ABSENT, sha256("hello")));

        handler().handle(request);

        assertThat(producer.history()).extracting(r -> r.value() instanceof ToolOutcome o ? o.getState().name() : "command")
                .containsExactly("STARTED", "OK", "command");
        assertThat(Files.readString(dir.resolve("ws").resolve(SESSION).resolve("a.txt"))).isEqualTo("hello");
    }

    @Test
    void aStartedCallWithoutAnEnd_thatCannotBeChecked_isUnknown_andNotRunAgain() throws Exception {
        var request = request("c1", "write_file", "{\"path\":\"a.txt\",\"content\":\"hello\"}", ToolMode.WRITE, POLICY);
        Path ws = Files.createDirectories(dir.resolve("ws").resolve(SESSION));
        Files.writeString(ws.resolve("a.txt"), "something else entirely");
        outcomes.append(started(request, ABSENT, sha256("hello")));

        handler().handle(request);

        ToolOutcome outcome = (ToolOutcome) producer.history().get(0).value();
        assertThat(outcome.getState()).isEqualTo(OutcomeState.UNKNOWN);
        assertThat(outcome.getContent()).contains("not run again");
        assertThat(Files.readString(ws.resolve("a.txt"))).isEqualTo("something else entirely");
    }

    @Test
    void aStartedCall_thatTookEffect_isRecordedDone_evenIfAuthorityNowRefusesIt() throws Exception {
        var request = request("c1", "write_file", "{\"path\":\"a.txt\",\"content\":\"hello\"}", ToolMode.WRITE, POLICY);
        Path ws = Files.createDirectories(dir.resolve("ws").resolve(SESSION));
        Files.writeString(ws.resolve("a.txt"), "hello"); // the effect happened, then the executor died
        long modified = Files.getLastModifiedTime(ws.resolve("a.txt")).toMillis();
        outcomes.append(started(request, ABSENT, sha256("hello")));
        // after the restart, write_file needs an approval: the POLICY basis it ran under no longer suffices
        var stricter = GatingPolicy.of("run_command,write_file", Map.of(), BUILT_INS.names());

        handler(BUILT_INS, stricter, Map.of()).handle(request);

        assertThat(written()).containsExactly("OK", "command");
        ToolOutcome outcome = (ToolOutcome) producer.history().get(0).value();
        assertThat(outcome.getAttempt()).isEqualTo(2);
        assertThat(Files.getLastModifiedTime(ws.resolve("a.txt")).toMillis()).isEqualTo(modified);
    }

    @Test
    void aStartedCall_thatCannotBeProven_isUnknown_notError_whenAuthorityNowRefusesIt() throws Exception {
        var request = request("c1", "write_file", "{\"path\":\"a.txt\",\"content\":\"hello\"}", ToolMode.READ_ONLY, POLICY);
        Path ws = Files.createDirectories(dir.resolve("ws").resolve(SESSION));
        Files.writeString(ws.resolve("a.txt"), "changed by someone else");
        outcomes.append(started(request, ABSENT, sha256("hello")));

        handler().handle(request); // READ_ONLY has no write_file: refused now

        assertThat(written()).containsExactly("UNKNOWN", "command");
        assertThat(Files.readString(ws.resolve("a.txt"))).isEqualTo("changed by someone else");
    }

    @Test
    void aStartedCall_provenNotDone_isRefused_whenAuthorityNowRefusesIt_andNotRun() {
        var request = request("c1", "write_file", "{\"path\":\"a.txt\",\"content\":\"hello\"}", ToolMode.WRITE, POLICY);
        outcomes.append(started(request, ABSENT, sha256("hello"))); // the file is still absent: not done
        var stricter = GatingPolicy.of("run_command,write_file", Map.of(), BUILT_INS.names());

        handler(BUILT_INS, stricter, Map.of()).handle(request);

        assertThat(written()).containsExactly("ERROR", "command");
        ToolOutcome outcome = (ToolOutcome) producer.history().get(0).value();
        assertThat(outcome.getContent()).contains("needs a human's approval");
        assertThat(dir.resolve("ws").resolve(SESSION).resolve("a.txt")).doesNotExist();
    }

    @Test
    void aStartedCall_whoseToolIsNoLongerRegistered_isUnknown() {
        var tickets = new TicketTool();
        var request = request("c1", TicketTool.NAME, "{\"title\":\"t\"}", ToolMode.WRITE, POLICY);
        outcomes.append(started(request, null, null));

        handler().handle(request); // the built-ins only: no create_ticket

        assertThat(written()).containsExactly("UNKNOWN", "command");
        assertThat(((ToolOutcome) producer.history().get(0).value()).getContent()).contains("not registered");
        assertThat(tickets.executions.get()).isZero();
    }

    @Test
    void anExternalCallAdapter_reconcilesByIdempotencyKey_recordingAFoundEffectDone_withoutRunningItAgain() {
        var tickets = new TicketTool();
        var request = request("c1", TicketTool.NAME, "{\"title\":\"disk full\"}", ToolMode.WRITE, POLICY);
        tickets.external.put(key("c1"), "T-41"); // the ticket was created, then the executor died
        outcomes.append(started(request, null, null));

        handler(tickets.registry(), COMMANDS_GATED, Map.of()).handle(request);

        assertThat(written()).containsExactly("OK", "command");
        assertThat(((ToolOutcome) producer.history().get(0).value()).getContent()).isEqualTo("ticket T-41 (found by its key)");
        assertThat(tickets.executions.get()).isZero();
        assertThat(tickets.external).containsExactly(Map.entry(key("c1"), "T-41"));
    }

    @Test
    void anExternalCallAdapter_reconcilesByIdempotencyKey_runningACallNotFound_once() {
        var tickets = new TicketTool();
        var request = request("c1", TicketTool.NAME, "{\"title\":\"disk full\"}", ToolMode.WRITE, POLICY);
        outcomes.append(started(request, null, null)); // STARTED, but the external system has no such key: not done
        var handler = handler(tickets.registry(), COMMANDS_GATED, Map.of());

        handler.handle(request);
        handler.handle(request); // delivered again: reported again, not run

        assertThat(written()).containsExactly("STARTED", "OK", "command", "command");
        assertThat(tickets.executions.get()).isEqualTo(1);
        assertThat(tickets.external).containsOnlyKeys(key("c1"));
    }

    /**
     * The erased session's request comes again (tool-requests replayed, a redelivery) on an executor that no longer
     * remembers the erasure (restarted long after it, or too many erasures since): its ledger record says so itself
     * ({@code erasedAt}, the output gone). It was reported again as an OK result with no content, a result the executor does
     * not have; nothing is run or reported now.
     */
    @Test
    void anErasedSessionsRequest_comingAgain_isNeitherRunNorReported_whenOnlyTheLedgerRemembersTheErasure() {
        var request = request("c1", "write_file", "{\"path\":\"a.txt\",\"content\":\"hello\"}", ToolMode.WRITE, POLICY);
        Instant erasedAt = Instant.parse("2026-11-29T09:59:50Z");
        outcomes.append(ToolOutcome.newBuilder().setIdempotencyKey(key("c1")).setSessionId(SESSION).setTenantId("acme")
                .setCallId("c1").setTool("write_file").setState(OutcomeState.OK).setAttempt(1).setExecutorId("executor-0")
                .setStartedAt(Instant.parse("2026-11-29T09:59:30Z")).setFinishedAt(Instant.parse("2026-11-29T09:59:31Z"))
                .setReportedEventId(CallRules.resultEventId(key("c1"))).setRequestedAt(request.getRequestedAt())
                .setErasedAt(erasedAt).build(), erasedAt); // as CallHandler.erase writes it

        handler().handle(request);

        assertThat(producer.history()).as("nothing written: no result, no ledger entry").isEmpty();
        assertThat(dir.resolve("ws").resolve(SESSION).resolve("a.txt")).doesNotExist();
    }

    @Test
    void aToolIsHandedTheKeyWithTheSessionsStart_whichItsStartRecords_andItsEndKeeps() {
        var tickets = new TicketTool();
        Instant sessionStartedAt = Instant.parse("2026-11-29T09:00:00.123Z");
        var request = ToolRequest.newBuilder(request("c1", TicketTool.NAME, "{\"title\":\"disk full\"}", ToolMode.WRITE, POLICY))
                .setSessionStartedAt(sessionStartedAt).build();
        String handed = key("c1") + "~" + sessionStartedAt.toEpochMilli();

        handler(tickets.registry(), COMMANDS_GATED, Map.of()).handle(request);

        assertThat(tickets.external).containsOnlyKeys(handed);
        assertThat(written()).containsExactly("STARTED", "OK", "command");
        assertThat(producer.history().subList(0, 2)).extracting(r -> ((ToolOutcome) r.value()).getExternalKey())
                .as("the start records the key it handed out, and the end keeps it").containsExactly(handed, handed);
        assertThat(((SessionCommand) producer.history().get(2).value()).getPayload().getAppendEvents().getSessionStartedAt())
                .as("the result is for the session that asked, never a later one under its id").isEqualTo(sessionStartedAt);
    }

    @Test
    void aReconciliation_looksUpTheKeyTheStartRecorded() {
        var tickets = new TicketTool();
        var request = ToolRequest.newBuilder(request("c1", TicketTool.NAME, "{\"title\":\"disk full\"}", ToolMode.WRITE, POLICY))
                .setSessionStartedAt(Instant.parse("2026-11-29T09:00:00.123Z")).build();
        String handed = key("c1") + "~1796114809377"; // whatever the start recorded, not what this request would derive
        tickets.external.put(handed, "T-41"); // the ticket was created under it, then the executor died
        outcomes.append(ToolOutcome.newBuilder(started(request, null, null)).setExternalKey(handed).build());

        handler(tickets.registry(), COMMANDS_GATED, Map.of()).handle(request);

        assertThat(written()).containsExactly("OK", "command");
        assertThat(((ToolOutcome) producer.history().get(0).value()).getContent()).isEqualTo("ticket T-41 (found by its key)");
        assertThat(((ToolOutcome) producer.history().get(0).value()).getExternalKey()).isEqualTo(handed);
        assertThat(tickets.executions.get()).isZero();
    }

    @Test
    void aSessionMadeAgainUnderAnErasedSessionsId_handsItsToolsAnotherKey_soAnExternalSystemDoesNotTakeItsCallForTheOld() {
        var tickets = new TicketTool();
        var handler = handler(tickets.registry(), COMMANDS_GATED, Map.of());
        var first = ToolRequest.newBuilder(request("c1", TicketTool.NAME, "{\"title\":\"disk full\"}", ToolMode.WRITE, POLICY))
                .setSessionStartedAt(Instant.parse("2026-11-29T09:00:00Z")).build();
        handler.handle(first);
        // erased, then made again under the id: its call at the same seq has the same key, authorized later
        var again = ToolRequest.newBuilder(first).setSessionStartedAt(Instant.parse("2026-11-29T10:00:00Z"))
                .setRequestedAt(Instant.parse("2026-11-29T10:00:05Z")).build();
        handler.handle(again);

        assertThat(tickets.executions.get()).as("the later session's call ran too").isEqualTo(2);
        assertThat(tickets.external).as("under keys that differ, as an external system deduplicating by key needs")
                .containsOnlyKeys(key("c1") + "~" + Instant.parse("2026-11-29T09:00:00Z").toEpochMilli(),
                        key("c1") + "~" + Instant.parse("2026-11-29T10:00:00Z").toEpochMilli());
    }

    @Test
    void everyConfiguredSecret_isRedactedFromEveryToolsOutput_notOnlyFromTheCallThatResolvedIt() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws").resolve(SESSION));
        // an earlier command wrote a resolved secret into the workspace
        Files.writeString(ws.resolve("config.txt"), "url=db://app:hunter2-but-longer@db\n");

        handler(BUILT_INS, COMMANDS_GATED, Map.of("db_password", "hunter2-but-longer"))
                .handle(request("c1", "read_file", "{\"path\":\"config.txt\"}", ToolMode.READ_ONLY, POLICY));

        assertThat(written()).containsExactly("STARTED", "OK", "command");
        ToolOutcome ended = (ToolOutcome) producer.history().get(1).value();
        assertThat(ended.getContent()).contains("[REDACTED:secret:db_password]").doesNotContain("hunter2");
        var result = ((SessionCommand) producer.history().get(2).value()).getPayload().getAppendEvents().getEvents().get(0);
        assertThat(result.toString()).doesNotContain("hunter2");
    }

    @Test
    void aCallAuthorizedBeforeAnInterruption_doesNotStart() {
        inFlight.interrupt(SESSION, 10);
        handler().handle(request("c1", "write_file", "{\"path\":\"a.txt\",\"content\":\"x\"}", ToolMode.WRITE, POLICY));

        ToolOutcome outcome = (ToolOutcome) producer.history().get(0).value();
        assertThat(outcome.getState()).isEqualTo(OutcomeState.CANCELLED);
        assertThat(dir.resolve("ws").resolve(SESSION).resolve("a.txt")).doesNotExist();
    }

    /** POLICY, a session grant given before the turn (seq 2), an approver's grant of the call after the interruption (seq 5). */
    static Stream<AuthorizationBasis> bases() {
        return Stream.of(POLICY, new AuthorizationBasis(AuthorizationBasisKind.APPROVAL, 2L, null, null),
                new AuthorizationBasis(AuthorizationBasisKind.APPROVAL, 5L, null, null));
    }

    @ParameterizedTest
    @MethodSource("bases")
    void aCallAuthorizedAfterTheInterruptionOfItsTurn_neverStarts_andIsAnsweredCancelledOnce(AuthorizationBasis basis) {
        // asked for at seq 3, its turn interrupted at seq 4, authorized at seq 6 (a log the sequencer should have refused)
        var tickets = new TicketTool();
        inFlight.interrupt(SESSION, 4);
        var handler = handler(tickets.registry(), COMMANDS_GATED, Map.of());
        var request = request(key("c1"), "c1", TicketTool.NAME, "{\"title\":\"disk full\"}", ToolMode.WRITE, basis, 6);

        handler.handle(request);
        handler.handle(request); // delivered again

        assertThat(tickets.executions.get()).isZero();
        assertThat(written()).containsExactly("CANCELLED", "command", "command");
        ToolOutcome outcome = (ToolOutcome) producer.history().get(0).value();
        assertThat(outcome.getContent()).isEqualTo(
                "cancelled: the turn was interrupted (turn_interrupted at seq 4) before the call started; nothing was run");
        var first = ((SessionCommand) producer.history().get(1).value()).getPayload().getAppendEvents().getEvents().get(0);
        var again = ((SessionCommand) producer.history().get(2).value()).getPayload().getAppendEvents().getEvents().get(0);
        assertThat(again.getEventId()).isEqualTo(first.getEventId()).isEqualTo(CallRules.resultEventId(key("c1")));
    }

    @Test
    void anInterruptionInTheLogThatTheWatcherHadNotReadYet_isCaughtUpWith_beforeTheCallStarts() {
        var tickets = new TicketTool();
        var caughtUp = new ArrayList<String>();
        catchUp = (sessionId, requestedAt) -> {
            caughtUp.add(sessionId);
            inFlight.interrupt(SESSION, 4); // the watcher reads the interruption while it catches up
        };

        handler(tickets.registry(), COMMANDS_GATED, Map.of())
                .handle(request(key("c1"), "c1", TicketTool.NAME, "{\"title\":\"disk full\"}", ToolMode.WRITE, POLICY, 5));

        assertThat(caughtUp).containsExactly(SESSION);
        assertThat(tickets.executions.get()).isZero();
        assertThat(written()).containsExactly("CANCELLED", "command");
    }

    @Test
    void aCatchUpThatCannotBeConfirmed_startsNothing_writesNothing_andTheRequestComesAgain() {
        var tickets = new TicketTool();
        catchUp = (sessionId, requestedAt) -> {
            throw new IllegalStateException("the interruptions of session " + sessionId + " could not be read up to now");
        };
        var request = request(key("c1"), "c1", TicketTool.NAME, "{\"title\":\"disk full\"}", ToolMode.WRITE, POLICY, 4);

        assertThatThrownBy(() -> handler(tickets.registry(), COMMANDS_GATED, Map.of()).handle(request))
                .isInstanceOf(IllegalStateException.class);

        assertThat(tickets.executions.get()).isZero();
        assertThat(producer.history()).as("no STARTED, no outcome, no result: the call is as new").isEmpty();
    }

    /**
     * The claim (whether this instance still holds the request's partition) is asked right before the call's first ledger
     * write, after its catch-up: given up by then, nothing is written, run or reported, and the loop leaves the call to the
     * partition's next owner. Given up once STARTED is written, the call runs on here and its outcome is recorded and
     * reported: its effect may have happened, and the next owner reconciles from what is recorded.
     */
    @Test
    void aCallWhosePartitionIsGivenUpBeforeItsFirstWrite_writesAndRunsNothing_butOneGivenUpAfterStarted_endsAndIsReported() {
        var tickets = new TicketTool();
        var held = new AtomicBoolean(true);
        catchUp = (sessionId, requestedAt) -> held.set(false); // given up while the call caught up
        var request = request(key("c1"), "c1", TicketTool.NAME, "{\"title\":\"disk full\"}", ToolMode.WRITE, POLICY, 4);

        assertThatThrownBy(() -> handler(tickets.registry(), COMMANDS_GATED, Map.of()).handle(request, held::get))
                .isInstanceOf(CallHandler.GivenUpException.class);
        assertThat(tickets.executions.get()).isZero();
        assertThat(producer.history()).as("no STARTED, no end, no result: the call is its next owner's").isEmpty();

        var asked = new AtomicInteger();
        CallHandler.Claim givenUpAfterStarted = () -> asked.incrementAndGet() == 1; // held at STARTED only
        handler(tickets.registry(), COMMANDS_GATED, Map.of()).handle(request, givenUpAfterStarted);
        assertThat(tickets.executions.get()).isOne();
        assertThat(written()).containsExactly("STARTED", "OK", "command");
    }

    @Test
    void anInterruptionOfAnEarlierTurn_doesNotStopACallOfALaterOne_norARetryAskedForAfterIt() {
        var tickets = new TicketTool();
        inFlight.interrupt(SESSION, 2);
        var handler = handler(tickets.registry(), COMMANDS_GATED, Map.of());

        handler.handle(request(key("c1"), "c1", TicketTool.NAME, "{\"title\":\"a\"}", ToolMode.WRITE, POLICY, 4));
        inFlight.interrupt(SESSION, 7);
        // c2 was asked for at seq 3 and came back UNKNOWN; a person asked for a retry at seq 9, after the interruption
        handler.handle(request(SESSION + "/9/c2", "c2", TicketTool.NAME, "{\"title\":\"b\"}", ToolMode.WRITE,
                new AuthorizationBasis(AuthorizationBasisKind.APPROVAL, 9L, null, null), 9));

        assertThat(tickets.executions.get()).isEqualTo(2);
        assertThat(written()).containsExactly("STARTED", "OK", "command", "STARTED", "OK", "command");
    }

    @Test
    void anInterruptionWhileACallRuns_cancelsItsToken() {
        var seen = new AtomicBoolean();
        Tool slow = new TicketTool() {
            @Override
            public ToolOutput execute(ToolContext context, JsonNode arguments) {
                inFlight.interrupt(SESSION, 4); // the user pressed stop while it ran
                seen.set(context.cancellation().isCancelled());
                return context.output(ToolOutput.Status.CANCELLED, "stopped");
            }
        };
        var registry = ToolRegistry.builder().addBuiltIns(HttpFetchPolicy.denyAll()).add(slow, dev.tether.core.event.ToolMode.WRITE).build();

        handler(registry, COMMANDS_GATED, Map.of()).handle(request(key("c1"), "c1", TicketTool.NAME, "{}", ToolMode.WRITE, POLICY, 4));

        assertThat(seen).isTrue();
        assertThat(written()).containsExactly("STARTED", "CANCELLED", "command");
    }

    /**
     * A session whose workspace cannot be made (here a file stands where its directory should be; a disk that refuses the
     * directory does the same): the call's batch failed each time it came, so the partition's every other call waited
     * behind it for ever. Nothing has started: the call ends as an ERROR, which says why without the host's path.
     */
    @Test
    void aCallWhoseWorkspaceCannotBeMade_endsAsAnError_withoutStarting() throws Exception {
        Files.createDirectories(dir.resolve("ws"));
        Files.writeString(dir.resolve("ws").resolve(SESSION), "not a directory");

        handler().handle(request("c1", "write_file", "{\"path\":\"a.txt\",\"content\":\"hello\"}", ToolMode.WRITE, POLICY));

        assertThat(written()).containsExactly("ERROR", "command");
        assertThat(((ToolOutcome) producer.history().get(0).value()).getContent())
                .startsWith("its session's workspace cannot be made").doesNotContain(dir.toString());
    }

    /** A STARTED call whose workspace cannot be opened now cannot be reconciled: UNKNOWN, not guessed, not run again. */
    @Test
    void aStartedCallWhoseWorkspaceCannotBeOpened_isUnknown_andNotRunAgain() throws Exception {
        var request = request("c1", "write_file", "{\"path\":\"a.txt\",\"content\":\"hello\"}", ToolMode.WRITE, POLICY);
        outcomes.append(started(request, ABSENT, sha256("hello")));
        Files.createDirectories(dir.resolve("ws"));
        Files.writeString(dir.resolve("ws").resolve(SESSION), "not a directory");

        handler().handle(request);

        assertThat(written()).containsExactly("UNKNOWN", "command");
        assertThat(((ToolOutcome) producer.history().get(0).value()).getContent()).contains("workspace cannot be made")
                .doesNotContain(dir.toString());
    }

    // --- a tool that throws what it should not ---------------------------------------------------------

    /**
     * A read-only, idempotent custom tool that throws {@code thrown} (made anew each time) from the step named
     * {@code at}: {@code intent}, {@code execute} or {@code reconcile}; it counts its executions.
     */
    private static final class ThrowingTool implements Tool {
        static final String NAME = "flaky_read";
        final String at;
        final Supplier<Throwable> thrown;
        final AtomicInteger executions = new AtomicInteger();

        ThrowingTool(String at, Supplier<Throwable> thrown) {
            this.at = at;
            this.thrown = thrown;
        }

        ToolRegistry registry() {
            return ToolRegistry.builder().addBuiltIns(HttpFetchPolicy.denyAll()).add(this, dev.tether.core.event.ToolMode.READ_ONLY).build();
        }

        private void maybeThrow(String step) {
            if (at.equals(step)) {
                Throwable t = thrown.get();
                if (t instanceof Error e) {
                    throw e;
                }
                throw (RuntimeException) t;
            }
        }

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public boolean mutating() {
            return false;
        }

        @Override
        public boolean idempotent() {
            return true;
        }

        @Override
        public Intent intent(ToolContext context, JsonNode arguments) {
            maybeThrow("intent");
            return at.equals("intent-null") ? null : Intent.NONE;
        }

        @Override
        public ToolOutput execute(ToolContext context, JsonNode arguments) {
            executions.incrementAndGet();
            maybeThrow("execute");
            return at.equals("execute-null") ? null : context.output(ToolOutput.Status.OK, "read");
        }

        @Override
        public Reconciliation reconcile(ToolContext context, JsonNode arguments, LedgerEntry started) {
            maybeThrow("reconcile");
            return at.equals("reconcile-null") ? null : new Reconciliation.NotApplied();
        }
    }

    static Stream<Supplier<Throwable>> errors() {
        return Stream.of(StackOverflowError::new, () -> new InternalError("a VM error"), () -> new AssertionError("a bug"),
                () -> new ExceptionInInitializerError(new IllegalStateException("static init")), () -> new NoClassDefFoundError("x/Y"));
    }

    /**
     * An {@link Error} from a tool escaped the handler: {@link ExecutorLoop} failed the batch and it came again, the
     * call STARTED, reconciled as harmless to repeat (a read) and run again, for ever, every other call of its partition
     * behind it. It ends the call as an ERROR, reported once, as a RuntimeException does.
     */
    @ParameterizedTest
    @MethodSource("errors")
    void anErrorThrownByATool_endsTheCallAsAnError_reportedOnce_andDoesNotEscapeTheHandler(Supplier<Throwable> error) {
        var tool = new ThrowingTool("execute", error);
        var handler = handler(tool.registry(), COMMANDS_GATED, Map.of());
        var request = request("c1", ThrowingTool.NAME, "{}", ToolMode.READ_ONLY, POLICY);

        handler.handle(request);
        handler.handle(request); // delivered again: reported again, not run

        assertThat(written()).containsExactly("STARTED", "ERROR", "command", "command");
        assertThat(((ToolOutcome) producer.history().get(1).value()).getContent())
                .isEqualTo(ThrowingTool.NAME + " failed: " + error.get().getClass().getSimpleName());
        assertThat(tool.executions.get()).isEqualTo(1);
    }

    /** A tool's intent that throws anything but a ToolException stopped the partition the same way; nothing has started then. */
    @ParameterizedTest
    @MethodSource("errors")
    void anIntentThatThrows_endsTheCallAsAnError_withoutStarting(Supplier<Throwable> error) {
        var tool = new ThrowingTool("intent", error);

        handler(tool.registry(), COMMANDS_GATED, Map.of()).handle(request("c1", ThrowingTool.NAME, "{}", ToolMode.READ_ONLY, POLICY));

        assertThat(written()).containsExactly("ERROR", "command");
        assertThat(((ToolOutcome) producer.history().get(0).value()).getContent())
                .isEqualTo(ThrowingTool.NAME + " failed: " + error.get().getClass().getSimpleName());
        assertThat(tool.executions.get()).isZero();
    }

    @Test
    void anIntentThatThrowsARuntimeException_endsTheCallAsAnError_withoutStarting() {
        var tool = new ThrowingTool("intent", () -> new NullPointerException("arguments.path"));

        handler(tool.registry(), COMMANDS_GATED, Map.of()).handle(request("c1", ThrowingTool.NAME, "{}", ToolMode.READ_ONLY, POLICY));

        assertThat(written()).containsExactly("ERROR", "command");
        assertThat(tool.executions.get()).isZero();
    }

    /** {@code reconcile} must never throw; one that does cannot say what became of the call: UNKNOWN, not run again. */
    @Test
    void aReconciliationThatThrows_isUnknown_andTheCallIsNotRunAgain() {
        var tool = new ThrowingTool("reconcile", () -> new IllegalStateException("lookup failed"));
        var request = request("c1", ThrowingTool.NAME, "{}", ToolMode.READ_ONLY, POLICY);
        outcomes.append(started(request, null, null));

        handler(tool.registry(), COMMANDS_GATED, Map.of()).handle(request);

        assertThat(written()).containsExactly("UNKNOWN", "command");
        assertThat(((ToolOutcome) producer.history().get(0).value()).getContent()).contains("IllegalStateException");
        assertThat(tool.executions.get()).isZero();
    }

    /**
     * A tool whose intent answered null (read as "no checkable effect") threw out of the handler before STARTED: the
     * batch failed and came again, for ever, every other call of its partition behind it. It is the call's ERROR.
     */
    @Test
    void anIntentThatAnswersNothing_endsTheCallAsAnError_withoutStarting_andDoesNotEscapeTheHandler() {
        var tool = new ThrowingTool("intent-null", () -> null);

        handler(tool.registry(), COMMANDS_GATED, Map.of()).handle(request("c1", ThrowingTool.NAME, "{}", ToolMode.READ_ONLY, POLICY));

        assertThat(written()).containsExactly("ERROR", "command");
        assertThat(tool.executions.get()).isZero();
    }

    /**
     * A tool whose execute answered null threw out of the handler after STARTED: the batch came again, the call was
     * reconciled as harmless to repeat and run again, up to {@link CallRules#MAX_STARTS} times. It is the call's ERROR.
     */
    @Test
    void anExecuteThatAnswersNothing_endsTheCallAsAnError_reportedOnce_andDoesNotEscapeTheHandler() {
        var tool = new ThrowingTool("execute-null", () -> null);
        var handler = handler(tool.registry(), COMMANDS_GATED, Map.of());
        var request = request("c1", ThrowingTool.NAME, "{}", ToolMode.READ_ONLY, POLICY);

        handler.handle(request);
        handler.handle(request); // delivered again: reported again, not run

        assertThat(written()).containsExactly("STARTED", "ERROR", "command", "command");
        assertThat(tool.executions.get()).isEqualTo(1);
    }

    /** A reconciliation that answers null says nothing of what became of the call: UNKNOWN, as one that throws. */
    @Test
    void aReconciliationThatAnswersNothing_isUnknown_andTheCallIsNotRunAgain() {
        var tool = new ThrowingTool("reconcile-null", () -> null);
        var request = request("c1", ThrowingTool.NAME, "{}", ToolMode.READ_ONLY, POLICY);
        outcomes.append(started(request, null, null));

        handler(tool.registry(), COMMANDS_GATED, Map.of()).handle(request);

        assertThat(written()).containsExactly("UNKNOWN", "command");
        assertThat(tool.executions.get()).isZero();
    }

    /**
     * A call that kills the executor each time it runs (a tool that exhausts the memory, the process killed by the system)
     * STARTED, reconciled as harmless to repeat, ran again and killed it again: the executor never came up for long. A call
     * started {@link CallRules#MAX_STARTS} times without ever ending is not run again: UNKNOWN, a human decides.
     */
    @Test
    void aCallStartedTheMostTimesWithoutEverEnding_isUnknown_notRunAgain_thoughHarmlessToRepeat() {
        var tool = new ThrowingTool("none", () -> null);
        var request = request("c1", ThrowingTool.NAME, "{}", ToolMode.READ_ONLY, POLICY);
        outcomes.append(ToolOutcome.newBuilder(started(request, null, null)).setAttempt(CallRules.MAX_STARTS).build());

        handler(tool.registry(), COMMANDS_GATED, Map.of()).handle(request);

        assertThat(written()).containsExactly("UNKNOWN", "command");
        assertThat(((ToolOutcome) producer.history().get(0).value()).getContent()).contains("started " + CallRules.MAX_STARTS + " times and never ended");
        assertThat(tool.executions.get()).isZero();
    }

    @Test
    void aCallStartedFewerTimesThanTheMost_isRunAgain_whenHarmlessToRepeat() {
        var tool = new ThrowingTool("none", () -> null);
        var request = request("c1", ThrowingTool.NAME, "{}", ToolMode.READ_ONLY, POLICY);
        outcomes.append(ToolOutcome.newBuilder(started(request, null, null)).setAttempt(CallRules.MAX_STARTS - 1).build());

        handler(tool.registry(), COMMANDS_GATED, Map.of()).handle(request);

        assertThat(written()).containsExactly("STARTED", "OK", "command");
        assertThat(tool.executions.get()).isEqualTo(1);
    }

    /**
     * An APPROVAL basis without the approval's seq cannot be read as a call: the handler threw, so ExecutorLoop failed and
     * rewound the batch, for ever, every other call of the partition waiting behind it. Such a request is skipped.
     */
    @Test
    void aRequestThatCannotBeReadAsACall_isSkipped_nothingRunRecordedOrReported_andNotThrownOutOfTheHandler() {
        var request = request("c1", "write_file", "{\"path\":\"a.txt\",\"content\":\"hello\"}", ToolMode.WRITE,
                new AuthorizationBasis(AuthorizationBasisKind.APPROVAL, null, null, null));

        handler().handle(request);

        assertThat(producer.history()).as("no ledger record, no tool_result").isEmpty();
        assertThat(dir.resolve("ws").resolve(SESSION).resolve("a.txt")).doesNotExist();
    }

    /**
     * A blank callId: the call ran, then its {@code tool_result} could not be made (a result names its call), so the
     * handler threw after the effect, and each time the request came again, reporting it again threw too: its partition
     * stopped for good. Such a request is skipped before anything runs.
     */
    @Test
    void aRequestWithABlankCallId_isSkippedBeforeAnythingRuns_andNotThrownOutOfTheHandler() {
        var request = request(SESSION + "/3/ ", " ", "write_file", "{\"path\":\"a.txt\",\"content\":\"hello\"}", ToolMode.WRITE, POLICY, 4);

        handler().handle(request);

        assertThat(producer.history()).as("no ledger record, no tool_result").isEmpty();
        assertThat(dir.resolve("ws").resolve(SESSION).resolve("a.txt")).doesNotExist();
    }

    private static final AuthorizationBasis POLICY = new AuthorizationBasis(AuthorizationBasisKind.POLICY, null, null, null);

    /** The hash file tools record for a file that does not exist. */
    private static final String ABSENT = "";

    private static String sha256(String text) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    private static String key(String callId) {
        return SESSION + "/3/" + callId;
    }

    private static ToolRequest request(String callId, String tool, String arguments, ToolMode mode, AuthorizationBasis basis) {
        return request(key(callId), callId, tool, arguments, mode, basis, 4);
    }

    /** A request of the call asked for by the assistant message at seq 3, under {@code key}, authorized at {@code authorizedSeq}. */
    private static ToolRequest request(String key, String callId, String tool, String arguments, ToolMode mode, AuthorizationBasis basis,
                                       long authorizedSeq) {
        return ToolRequest.newBuilder()
                .setIdempotencyKey(key).setSessionId(SESSION).setTenantId("acme").setCallId(callId).setTool(tool)
                .setArgumentsJson(arguments).setRequestSeq(3).setAuthorizedSeq(authorizedSeq).setBasis(basis).setToolMode(mode)
                .setHarnessVersion("v1").setRequestedAt(Instant.parse("2026-11-29T09:59:00Z"))
                .build();
    }

    /** The erasure the projector emits for {@code call} when its session is erased at {@code erasedAt}. */
    private static ToolRequest erasure(ToolRequest call, Instant erasedAt) {
        return ToolRequest.newBuilder(call).setArgumentsJson("{}").setRunBy(dev.tether.avro.CallRunner.RECORDED).setErasedAt(erasedAt).build();
    }

    private static ToolOutcome started(ToolRequest request, String before, String after) { // hashes null for non-file tools
        return ToolOutcome.newBuilder()
                .setIdempotencyKey(request.getIdempotencyKey()).setSessionId(SESSION).setTenantId("acme")
                .setCallId(request.getCallId()).setTool(request.getTool()).setState(OutcomeState.STARTED).setAttempt(1)
                .setExecutorId("executor-0").setStartedAt(Instant.parse("2026-11-29T09:59:30Z"))
                .setBeforeHash(before).setAfterHash(after)
                .build();
    }
}
