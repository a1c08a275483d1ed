package dev.tether.projector.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.avro.Checkpoint;
import dev.tether.avro.OutcomeState;
import dev.tether.avro.SessionEvent;
import dev.tether.avro.CallRunner;
import dev.tether.avro.ToolOutcome;
import dev.tether.avro.ToolRequest;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.OutcomeResolution;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.ToolOutcomeResolved;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.UserMessage;
import dev.tether.core.id.IdempotencyKey;
import dev.tether.core.id.StoreKey;
import dev.tether.kit.kafka.EventAvro;
import dev.tether.kit.kafka.SessionEventKey;
import dev.tether.kit.kafka.SessionEventKeySerde;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.kafka.TenantIndex;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import dev.tether.kit.tracing.KafkaTracing;
import dev.tether.projector.domain.CallRecord;
import io.opentelemetry.api.OpenTelemetry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole projector topology, driven without a broker. */
class ProjectorTopologyTest {

    /** The stores' directory, this test's own: under the fixed default two builds running the test at once collide. */
    @TempDir
    Path stateDir;

    private static final TopicLayout LAYOUT = ProjectorDrivers.LAYOUT;

    private final StoreSignals signals = new StoreSignals();
    private TopologyTestDriver driver;
    private TestInputTopic<SessionEventKey, SessionEvent> events;
    private TestInputTopic<String, ToolOutcome> outcomes;
    private TestOutputTopic<String, Checkpoint> checkpoints;
    private TestOutputTopic<String, ToolRequest> requests;

    @BeforeEach
    void setUp() {
        var serdes = ProjectorDrivers.serdes();
        driver = ProjectorDrivers.start("projector-test", stateDir, serdes, new KafkaTracing(OpenTelemetry.noop(), "test"), signals);
        events = driver.createInputTopic(LAYOUT.name(Topics.SESSION_EVENTS), new SessionEventKeySerde(), serdes.events().serializer());
        outcomes = driver.createInputTopic(LAYOUT.name(Topics.TOOL_OUTCOMES), Serdes.String().serializer(), serdes.outcomes().serializer());
        checkpoints = driver.createOutputTopic(LAYOUT.name(Topics.SESSION_CHECKPOINTS), Serdes.String().deserializer(),
                serdes.checkpoints().deserializer());
        requests = driver.createOutputTopic(LAYOUT.name(Topics.TOOL_REQUESTS), Serdes.String().deserializer(),
                serdes.requests().deserializer());
    }

    @AfterEach
    void tearDown() {
        driver.close();
    }

    @Test
    void everyEvent_updatesTheCheckpoint_andItsMessageIsStored() {
        pipe("s1", 1, started());
        pipe("s1", 2, new UserMessage("hello", null));

        List<KeyValue<String, Checkpoint>> out = checkpoints.readKeyValuesToList();
        assertThat(out).extracting(kv -> kv.value.getLastSeq()).containsExactly(1L, 2L);
        assertThat(out).allSatisfy(kv -> assertThat(kv.key).isEqualTo("s1"));
        KeyValueStore<SessionEventKey, SessionEvent> messages = driver.getKeyValueStore(ProjectorStores.MESSAGES);
        assertThat(messages.get(new SessionEventKey("s1", 2)).getType()).isEqualTo("user_message");
    }

    @Test
    void theFold_wakesAReadWaitingForTheSessionsCheckpoint() throws Exception {
        var looked = new AtomicInteger();
        ExecutorService reader = Executors.newSingleThreadExecutor();
        try {
            // the check answers only when it is asked again, which only a signal does before the (long) deadline
            Future<Optional<Boolean>> woken = reader.submit(() -> signals.await(ProjectorStores.CHECKPOINTS, "s1", Duration.ofSeconds(30),
                    () -> looked.incrementAndGet() > 1 ? Optional.of(true) : Optional.empty()));
            while (signals.waiting() == 0) {
                Thread.onSpinWait();
            }

            pipe("s1", 1, started());

            assertThat(woken.get(5, TimeUnit.SECONDS)).contains(true);
        } finally {
            reader.shutdownNow();
        }
    }

    @Test
    void toolCallAuthorized_emitsOneToolRequest_keyedByTheRequestingEvent() {
        pipe("s1", 1, started());
        pipe("s1", 2, new AssistantMessage("reading", null, List.of(new ToolCall("c1", "read_file", "{\"path\":\"a.txt\"}")),
                new TokenUsage(1, 1)));
        pipe("s1", 3, new UserMessage("meanwhile", null));
        pipe("s1", 4, new ToolCallAuthorized("c1", AuthorizationBasis.POLICY));

        List<KeyValue<String, ToolRequest>> out = requests.readKeyValuesToList();
        assertThat(out).singleElement().satisfies(kv -> {
            assertThat(kv.key).isEqualTo("s1/2/c1");
            assertThat(kv.value.getIdempotencyKey()).isEqualTo("s1/2/c1");
            assertThat(kv.value.getArgumentsJson()).isEqualTo("{\"path\":\"a.txt\"}");
            assertThat(kv.value.getRequestSeq()).isEqualTo(2);
            assertThat(kv.value.getAuthorizedSeq()).isEqualTo(4);
            assertThat(kv.value.getTool()).isEqualTo("read_file");
            assertThat(kv.value.getToolMode().name()).isEqualTo("WRITE");
            assertThat(kv.value.getSessionStartedAt()).as("seq 1's occurredAt: the executor hands the tool s1/2/c1~<its ms>")
                    .isEqualTo(Instant.parse("2026-11-29T10:00:01Z"));
        });
    }

    @Test
    void aSessionMadeAgainUnderAnErasedSessionsId_hasItsOwnStartInItsRequests() {
        pipe("s1", 1, started());
        pipe("s1", 2, new AssistantMessage("x", null, List.of(new ToolCall("c1", "read_file", "{}")), new TokenUsage(1, 1)));
        pipe("s1", 3, new ToolCallAuthorized("c1", AuthorizationBasis.POLICY));
        for (long seq = 1; seq <= 3; seq++) {
            events.pipeInput(new SessionEventKey("s1", seq), null, Instant.parse("2026-11-30T08:00:00Z"));
        }
        Instant again = Instant.parse("2026-11-30T09:00:00Z");
        pipe("acme", "s1", 1, again, started());
        pipe("acme", "s1", 2, again.plusSeconds(1), new AssistantMessage("x", null, List.of(new ToolCall("c1", "read_file", "{}")),
                new TokenUsage(1, 1)));
        pipe("acme", "s1", 3, again.plusSeconds(2), new ToolCallAuthorized("c1", AuthorizationBasis.POLICY));

        assertThat(requests.readKeyValuesToList()).filteredOn(kv -> kv.value.getErasedAt() == null)
                .extracting(kv -> kv.value.getSessionStartedAt())
                .containsExactly(Instant.parse("2026-11-29T10:00:01Z"), again);
    }

    @Test
    void aHarnessRunCall_getsNoToolRequest_authorizedOrRetried_whileAnExecutorCallOfTheSameTurnGetsItsOne() {
        pipe("s1", 1, new SessionStarted("Send it", "Be careful.", "model-x", "v1", ToolMode.WRITE, List.of(), null, null,
                List.of(new dev.tether.core.event.HarnessTool("send_email", true, true, false),
                        new dev.tether.core.event.HarnessTool("web_search", false, false, true))));
        pipe("s1", 2, new AssistantMessage("x", null, List.of(new ToolCall("c1", "send_email", "{}"), new ToolCall("c2", "read_file", "{}"),
                new ToolCall("c3", "web_search", "{}")), new TokenUsage(1, 1)));
        pipe("s1", 3, new ToolCallAuthorized("c1", AuthorizationBasis.POLICY));
        pipe("s1", 4, new ToolCallAuthorized("c2", AuthorizationBasis.POLICY));
        pipe("s1", 5, new ToolCallAuthorized("c3", AuthorizationBasis.POLICY));
        pipe("s1", 6, new dev.tether.core.event.ToolCallStarted("c1", "s1/2/c1", 0, 1));
        pipe("s1", 7, new ToolOutcomeResolved("c1", OutcomeResolution.RETRY, "agent-1", "the hook found nothing sent"));

        List<KeyValue<String, ToolRequest>> out = requests.readKeyValuesToList();
        assertThat(out).extracting(kv -> kv.key).containsExactly("s1/2/c2");
        assertThat(out.get(0).value.getRunBy()).isEqualTo(dev.tether.avro.CallRunner.EXECUTOR);
        CallRecord call = driver.<String, CallRecord>getKeyValueStore(ProjectorStores.CALLS).get(StoreKey.of("s1", "c1"));
        assertThat(call.idempotencyKey()).as("the call record follows the retry").isEqualTo("s1/7/c1");

        events.pipeInput(new SessionEventKey("s1", 1), null);
        assertThat(requests.readKeyValuesToList()).as("the erasure of the executor's call only").extracting(kv -> kv.key)
                .containsExactly("s1/2/c2");
    }

    @Test
    void aCallASessionGrantsGlobCovered_isRequestedWithTheGlob_forTheExecutorToCheckAgain() {
        pipe("s1", 1, started());
        pipe("s1", 2, new AssistantMessage("x", null, List.of(new ToolCall("c1", "write_file", "{\"path\":\"src/a\",\"content\":\"\"}")),
                new TokenUsage(1, 1)));
        pipe("s1", 3, new ToolCallAuthorized("c1", AuthorizationBasis.approval(2, "src/**")));

        ToolRequest request = requests.readValue();
        assertThat(request.getBasis().getApprovalSeq()).isEqualTo(2);
        assertThat(request.getBasis().getPathGlob()).isEqualTo("src/**");
    }

    @Test
    void anApprovedCall_isRequestedWithTheHashOfWhatItsApproverWasShown_forTheExecutorToCompare() {
        String shown = "0123456789abcdef".repeat(4);
        pipe("s1", 1, started());
        pipe("s1", 2, new AssistantMessage("x", null, List.of(new ToolCall("c1", "write_file", "{\"path\":\"a\",\"content\":\"\"}")),
                new TokenUsage(1, 1)));
        pipe("s1", 3, new ToolCallAuthorized("c1", AuthorizationBasis.approvalOfShown(2, shown)));

        assertThat(requests.readValue().getBasis().getShownSha256()).isEqualTo(shown);
    }

    @Test
    void aRetryOfAnUnknownOutcome_emitsASecondRequest_underTheKeyOfTheRetryDecision() {
        pipe("s1", 1, started());
        pipe("s1", 2, new AssistantMessage("x", null, List.of(new ToolCall("c1", "run_command", "{\"command\":\"make\"}")),
                new TokenUsage(1, 1)));
        pipe("s1", 3, new ToolCallAuthorized("c1", AuthorizationBasis.approval(2)));
        pipe("s1", 4, new ToolResult("c1", "s1/2/c1", ToolStatus.UNKNOWN, "crashed mid-call", null));
        pipe("s1", 5, new ToolOutcomeResolved("c1", OutcomeResolution.RETRY, "alice", "run it again"));

        List<KeyValue<String, ToolRequest>> out = requests.readKeyValuesToList();
        assertThat(out).extracting(kv -> kv.key).containsExactly("s1/2/c1", "s1/5/c1");
        ToolRequest retry = out.get(1).value;
        assertThat(retry.getIdempotencyKey()).isEqualTo("s1/5/c1");
        assertThat(retry.getRequestSeq()).isEqualTo(2);
        assertThat(retry.getAuthorizedSeq()).isEqualTo(5);
        assertThat(retry.getBasis().getKind().name()).isEqualTo("APPROVAL");
        assertThat(retry.getBasis().getApprovalSeq()).isEqualTo(5);
        assertThat(retry.getArgumentsJson()).isEqualTo("{\"command\":\"make\"}");
        assertThat(retry.getSessionStartedAt()).isEqualTo(Instant.parse("2026-11-29T10:00:01Z"));
        CallRecord call = driver.<String, CallRecord>getKeyValueStore(ProjectorStores.CALLS).get(StoreKey.of("s1", "c1"));
        assertThat(call.idempotencyKey()).isEqualTo("s1/5/c1");
        assertThat(call.resultSeq()).isNull();
    }

    @Test
    void markingAnUnknownOutcomeDone_emitsNoRequest() {
        pipe("s1", 1, started());
        pipe("s1", 2, new AssistantMessage("x", null, List.of(new ToolCall("c1", "run_command", "{}")), new TokenUsage(1, 1)));
        pipe("s1", 3, new ToolCallAuthorized("c1", AuthorizationBasis.POLICY));
        pipe("s1", 4, new ToolResult("c1", "s1/2/c1", ToolStatus.UNKNOWN, "crashed mid-call", null));
        requests.readKeyValuesToList();

        pipe("s1", 5, new ToolOutcomeResolved("c1", OutcomeResolution.MARK_DONE, "alice", "it ran"));

        assertThat(requests.isEmpty()).isTrue();
        CallRecord call = driver.<String, CallRecord>getKeyValueStore(ProjectorStores.CALLS).get(StoreKey.of("s1", "c1"));
        assertThat(call.resultStatus()).isEqualTo(ToolStatus.OK);
        assertThat(call.resultSeq()).isEqualTo(5);
    }

    @Test
    void aReplayedEvent_changesNothing() {
        pipe("s1", 1, started());
        pipe("s1", 2, new AssistantMessage("x", null, List.of(new ToolCall("c1", "read_file", "{}")), new TokenUsage(1, 1)));
        pipe("s1", 3, new ToolCallAuthorized("c1", AuthorizationBasis.POLICY));
        checkpoints.readKeyValuesToList();
        requests.readKeyValuesToList();

        pipe("s1", 3, new ToolCallAuthorized("c1", AuthorizationBasis.POLICY));

        assertThat(checkpoints.isEmpty()).isTrue();
        assertThat(requests.isEmpty()).as("no second request for a replayed authorization").isTrue();
    }

    @Test
    void theExecutorsLedger_recordsAttemptsOnTheCall() {
        pipe("s1", 1, started());
        pipe("s1", 2, new AssistantMessage("x", null, List.of(new ToolCall("c1", "run_command", "{}")), new TokenUsage(1, 1)));
        pipe("s1", 3, new ToolCallAuthorized("c1", AuthorizationBasis.POLICY));
        outcomes.pipeInput("s1/2/c1", outcome(OutcomeState.STARTED, null));
        outcomes.pipeInput("s1/2/c1", outcome(OutcomeState.OK, Instant.parse("2026-11-29T10:00:05Z")));
        pipe("s1", 4, new ToolResult("c1", "s1/2/c1", ToolStatus.OK, "done", null));

        KeyValueStore<String, CallRecord> calls = driver.getKeyValueStore(ProjectorStores.CALLS);
        CallRecord call = calls.get(StoreKey.of("s1", "c1"));
        assertThat(call.attempts()).singleElement().satisfies(a -> {
            assertThat(a.attempt()).isEqualTo(1);
            assertThat(a.state()).isEqualTo("OK");
        });
        assertThat(call.authorizedSeq()).isEqualTo(3);
        assertThat(call.resultSeq()).isEqualTo(4);
        assertThat(call.resultStatus()).isEqualTo(ToolStatus.OK);
        assertThat(call.basis()).isEqualTo("POLICY");
    }

    @Test
    void erasure_tombstonesTheCheckpoint_andForgetsTheSession() {
        pipe("s1", 1, started());
        pipe("s1", 2, new AssistantMessage("x", null, List.of(new ToolCall("c1", "read_file", "{}")), new TokenUsage(1, 1)));
        checkpoints.readKeyValuesToList();

        events.pipeInput(new SessionEventKey("s1", 1), null);
        events.pipeInput(new SessionEventKey("s1", 2), null);

        List<KeyValue<String, Checkpoint>> out = checkpoints.readKeyValuesToList();
        assertThat(out).singleElement().satisfies(kv -> assertThat(kv.value).isNull());
        KeyValueStore<String, Checkpoint> stored = driver.getKeyValueStore(ProjectorStores.CHECKPOINTS);
        assertThat(stored.get("s1")).isNull();
        KeyValueStore<String, CallRecord> calls = driver.getKeyValueStore(ProjectorStores.CALLS);
        assertThat(calls.get(StoreKey.of("s1", "c1"))).isNull();
        KeyValueStore<SessionEventKey, SessionEvent> messages = driver.getKeyValueStore(ProjectorStores.MESSAGES);
        assertThat(messages.get(new SessionEventKey("s1", 2))).isNull();
    }

    @Test
    void erasure_asksTheExecutorToEraseTheOutputOfEachCallItRecorded_underTheCallsKeyAndAuthorizationTime() {
        pipe("s1", 1, started());
        pipe("s1", 2, new AssistantMessage("x", null, List.of(new ToolCall("c1", "run_command", "{\"command\":\"cat secret\"}"),
                new ToolCall("c2", "read_file", "{}"), new ToolCall("c3", "write_file", "{}")), new TokenUsage(1, 1)));
        pipe("s1", 3, new ToolCallAuthorized("c1", AuthorizationBasis.POLICY));
        pipe("s1", 4, new ToolCallAuthorized("c2", AuthorizationBasis.POLICY)); // requested, not yet run
        outcomes.pipeInput("s1/2/c1", outcome(OutcomeState.STARTED, null));
        outcomes.pipeInput("s1/2/c1", outcome(OutcomeState.UNKNOWN, Instant.parse("2026-11-29T10:00:05Z")));
        pipe("s1", 5, new ToolResult("c1", "s1/2/c1", ToolStatus.UNKNOWN, "crashed mid-call", null));
        pipe("s1", 6, new ToolOutcomeResolved("c1", OutcomeResolution.RETRY, "alice", "run it again"));
        outcomes.pipeInput("s1/6/c1", outcome(OutcomeState.OK, Instant.parse("2026-11-29T10:00:07Z")));
        requests.readKeyValuesToList();

        events.pipeInput(new SessionEventKey("s1", 1), null, Instant.parse("2026-11-30T08:00:00Z"));
        for (long seq = 2; seq <= 6; seq++) {
            events.pipeInput(new SessionEventKey("s1", seq), null, Instant.parse("2026-11-30T08:00:00Z"));
        }

        List<KeyValue<String, ToolRequest>> out = requests.readKeyValuesToList();
        assertThat(out).as("each attempt of each requested call, under its own key (c1's first and its retry's), once;"
                + " c3 was never authorized").extracting(kv -> kv.key).containsExactlyInAnyOrder("s1/2/c1", "s1/6/c1", "s1/2/c2");
        assertThat(out).filteredOn(kv -> kv.key.equals("s1/2/c1")).singleElement().satisfies(kv -> {
            assertThat(kv.value.getRequestedAt()).as("the first attempt's authorization, as its request carried")
                    .isEqualTo(Instant.parse("2026-11-29T10:00:03Z"));
            assertThat(kv.value.getAuthorizedSeq()).isEqualTo(3);
            assertThat(kv.value.getBasis().getKind().name()).isEqualTo("POLICY");
        });
        assertThat(out).filteredOn(kv -> kv.key.equals("s1/2/c2")).singleElement().satisfies(kv -> {
            assertThat(kv.value.getRequestedAt()).isEqualTo(Instant.parse("2026-11-29T10:00:04Z"));
            assertThat(kv.value.getBasis().getKind().name()).isEqualTo("POLICY");
        });
        assertThat(out).filteredOn(kv -> kv.key.equals("s1/6/c1")).singleElement().satisfies(kv -> {
            ToolRequest erasure = kv.value;
            assertThat(erasure.getErasedAt()).isEqualTo(Instant.parse("2026-11-30T08:00:00Z"));
            assertThat(erasure.getRequestedAt()).as("the retry decision's occurredAt, as its request carried")
                    .isEqualTo(Instant.parse("2026-11-29T10:00:06Z"));
            assertThat(erasure.getAuthorizedSeq()).isEqualTo(6);
            assertThat(erasure.getBasis().getApprovalSeq()).isEqualTo(6);
            assertThat(erasure.getArgumentsJson()).as("nothing of the erased call's arguments").isEqualTo("{}");
            assertThat(erasure.getRunBy()).as("an executor before erasures answers nothing for it").isEqualTo(CallRunner.RECORDED);
            assertThat(erasure.getTool()).isEqualTo("run_command");
            assertThat(erasure.getSessionStartedAt()).as("an erasure hands nothing to a tool").isNull();
        });
    }

    @Test
    void aLedgerRecordRewrittenAtAnErasure_isNoAttemptOfACallOfTheSameKey() {
        pipe("s1", 1, started());
        pipe("s1", 2, new AssistantMessage("x", null, List.of(new ToolCall("c1", "run_command", "{}")), new TokenUsage(1, 1)));
        pipe("s1", 3, new ToolCallAuthorized("c1", AuthorizationBasis.POLICY));
        outcomes.pipeInput("s1/2/c1", outcome(OutcomeState.STARTED, null));

        ToolOutcome erasedSessions = outcome(OutcomeState.OK, Instant.parse("2026-11-29T09:00:05Z"));
        erasedSessions.setErasedAt(Instant.parse("2026-11-29T09:30:00Z"));
        outcomes.pipeInput("s1/2/c1", erasedSessions);

        CallRecord call = driver.<String, CallRecord>getKeyValueStore(ProjectorStores.CALLS).get(StoreKey.of("s1", "c1"));
        assertThat(call.attempts()).extracting(CallRecord.Attempt::state).containsExactly("STARTED");
    }

    @Test
    void aLedgerRecordOfAnErasedSessionsCall_isNoAttemptOfTheCallOfTheSameKeyInTheSessionMadeAgainUnderItsId() {
        pipe("s1", 1, started()); // started at 10:00:01
        pipe("s1", 2, new AssistantMessage("x", null, List.of(new ToolCall("c1", "run_command", "{}")), new TokenUsage(1, 1)));
        pipe("s1", 3, new ToolCallAuthorized("c1", AuthorizationBasis.POLICY));

        ToolOutcome its = outcome(OutcomeState.STARTED, null);
        its.setExternalKey(IdempotencyKey.external("s1/2/c1", Instant.parse("2026-11-29T10:00:01Z")));
        outcomes.pipeInput("s1/2/c1", its);
        ToolOutcome earlierSessions = outcome(OutcomeState.OK, Instant.parse("2026-11-29T09:00:05Z")); // finished late
        earlierSessions.setExternalKey(IdempotencyKey.external("s1/2/c1", Instant.parse("2026-11-29T08:00:01Z")));
        outcomes.pipeInput("s1/2/c1", earlierSessions);

        CallRecord call = driver.<String, CallRecord>getKeyValueStore(ProjectorStores.CALLS).get(StoreKey.of("s1", "c1"));
        assertThat(call.attempts()).as("only the attempt handed this session's start").extracting(CallRecord.Attempt::state)
                .containsExactly("STARTED");
    }

    @Test
    void eachSession_isIndexedByItsTenantWhenFirstProjected_andLeavesTheIndexWithItsErasure() {
        pipe("s1", 1, started());
        pipe("s1", 2, new UserMessage("a", null));
        pipe("globex", "s2", 1, started());
        assertThat(tenantKeys()).containsExactly(StoreKey.of("acme", "s1"), StoreKey.of("globex", "s2"));

        events.pipeInput(new SessionEventKey("s1", 1), null);
        events.pipeInput(new SessionEventKey("s1", 2), null);

        assertThat(tenantKeys()).containsExactly(StoreKey.of("globex", "s2"));
    }

    @Test
    void sessionsProjectedBeforeTheIndexExisted_areIndexedOnce_whenTheTaskFirstRuns() {
        pipe("s1", 1, started());
        pipe("globex", "s2", 1, started());
        KeyValueStore<String, String> index = driver.getKeyValueStore(ProjectorStores.BY_TENANT);
        tenantKeys().forEach(index::delete); // as a projector before the index left its partition: checkpoints, no index

        driver.advanceWallClockTime(Duration.ofMillis(10));

        assertThat(tenantKeys()).containsExactly(StoreKey.of("acme", "s1"), StoreKey.of("globex", "s2"));
        assertThat(index.get(TenantIndex.FILLED)).as("filled: not again").isNotNull();
        index.delete(StoreKey.of("acme", "s1"));
        driver.advanceWallClockTime(Duration.ofSeconds(10));
        assertThat(tenantKeys()).containsExactly(StoreKey.of("globex", "s2"));
    }

    /** The keys of the by-tenant index but its mark. */
    private List<String> tenantKeys() {
        KeyValueStore<String, String> index = driver.getKeyValueStore(ProjectorStores.BY_TENANT);
        var keys = new java.util.ArrayList<String>();
        try (var all = index.all()) {
            all.forEachRemaining(kv -> keys.add(kv.key));
        }
        keys.remove(TenantIndex.FILLED);
        return keys;
    }

    @Test
    void aLostCheckpoint_isRebuiltFromTheMessages() {
        pipe("s1", 1, started());
        pipe("s1", 2, new UserMessage("a", null));
        KeyValueStore<String, Checkpoint> stored = driver.getKeyValueStore(ProjectorStores.CHECKPOINTS);
        Checkpoint expectedAt2 = stored.get("s1");
        stored.delete("s1");

        pipe("s1", 3, new UserMessage("b", null));

        Checkpoint rebuilt = stored.get("s1");
        assertThat(rebuilt.getLastSeq()).isEqualTo(3);
        assertThat(rebuilt.getObjective()).isEqualTo(expectedAt2.getObjective());
        assertThat(rebuilt.getOwner()).isEqualTo("alice");
    }

    private void pipe(String sessionId, long seq, EventPayload payload) {
        pipe("acme", sessionId, seq, payload);
    }

    private void pipe(String tenantId, String sessionId, long seq, EventPayload payload) {
        pipe(tenantId, sessionId, seq, Instant.parse("2026-11-29T10:00:00Z").plusSeconds(seq), payload);
    }

    private void pipe(String tenantId, String sessionId, long seq, Instant occurredAt, EventPayload payload) {
        var event = new Event("e-" + sessionId + "-" + seq, sessionId, tenantId, seq, occurredAt, new Actor(ActorKind.USER, "alice"), "v1",
                payload);
        events.pipeInput(new SessionEventKey(sessionId, seq), EventAvro.toAvro(event));
    }

    private static SessionStarted started() {
        return new SessionStarted("Rename Foo", "Be careful.", "model-x", "v1", ToolMode.WRITE, List.of(), null, null);
    }

    private static ToolOutcome outcome(OutcomeState state, Instant finishedAt) {
        return ToolOutcome.newBuilder().setIdempotencyKey("s1/2/c1").setSessionId("s1").setTenantId("acme").setCallId("c1")
                .setTool("run_command").setState(state).setAttempt(1).setExecutorId("executor-1")
                .setStartedAt(Instant.parse("2026-11-29T10:00:04Z")).setFinishedAt(finishedAt).build();
    }
}
