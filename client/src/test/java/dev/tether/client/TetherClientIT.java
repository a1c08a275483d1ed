package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.client.kafka.SessionEventKeys;
import dev.tether.testing.ServiceProcess;
import dev.tether.testing.TetherStack;
import dev.tether.testing.TopicReader;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The SDK against the real services: the packaged session-service and projector-service run as
 * processes (under a topic prefix of their own) on the real broker and registry. Nothing is mocked;
 * the session-service is SIGKILLed and restarted under a live subscription.
 */
class TetherClientIT {

    private static final Duration PATIENCE = Duration.ofMinutes(2);

    private static String prefix;
    private static Path workDir;
    private static ServiceProcess sessions;
    private static ServiceProcess projector;
    private static TetherClient agent;

    @BeforeAll
    static void start() throws IOException {
        prefix = "client-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        workDir = Files.createTempDirectory("client-it-");
        var env = ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix, "TETHER_SESSIONS_BLOBS_DIR", workDir.resolve("blobs").toString());
        sessions = new ServiceProcess(Path.of("../session-service").toAbsolutePath(), workDir.resolve("session-service"), env, List.of());
        projector = new ServiceProcess(Path.of("../projector-service").toAbsolutePath(), workDir.resolve("projector-service"), env, List.of());
        sessions.start();
        projector.start();
        agent = TetherClient.create(options("dev-acme-agent"));
    }

    @AfterAll
    static void stop() throws IOException {
        if (agent != null) {
            agent.close();
        }
        if (projector != null) {
            projector.stop();
        }
        if (sessions != null) {
            sessions.stop();
        }
        if (workDir != null) {
            try (var paths = Files.walk(workDir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** Options for these services, a patient retry policy (the machine is slow), and no approval-service. */
    private static TetherOptions options(String token) {
        return TetherOptions.of(URI.create(sessions.baseUrl()), URI.create(projector.baseUrl()), URI.create("http://127.0.0.1:9"))
                .withToken(token)
                .withTimeout(Duration.ofSeconds(30))
                .withRetry(RetryPolicy.of(12, Duration.ofMillis(250), Duration.ofSeconds(5)));
    }

    private static String newSession(String name) {
        String id = name + "-" + UUID.randomUUID().toString().substring(0, 8);
        agent.createSession(NewSession.of("Rename Foo to Bar in src/", "claude-sonnet-4", ToolMode.WRITE).withSessionId(id)
                .withSystemPrompt("You are a careful engineer.").withConstraints(List.of("keep the tests green"))).createdOrThrow();
        return id;
    }

    @Test
    void createClaimAndAppend_withExpectedSeqAndEpoch_appendInOrder() {
        String id = "flow-" + UUID.randomUUID().toString().substring(0, 8);
        NewSession request = NewSession.of("Rename Foo to Bar in src/", "claude-sonnet-4", ToolMode.WRITE).withSessionId(id);
        Created created = agent.createSession(request).createdOrThrow();
        assertThat(created).usingRecursiveComparison().ignoringFields("sessionStartedAt").isEqualTo(new Created(id, 1, "v1", "claude-sonnet-4", 0));
        assertThat(created.sessionStartedAt()).as("seq 1's occurredAt")
                .isEqualTo(agent.events(id, 1, 1).map(p -> p.events().get(0).occurredAt()));
        // the same request again is a retry: the same answer, nothing appended
        assertThat(agent.createSession(request).createdOrThrow().seq()).isEqualTo(1);
        // another request for the same id is refused, naming the field
        CreateResult other = agent.createSession(NewSession.of("Something else", "claude-sonnet-4", ToolMode.WRITE).withSessionId(id));
        assertThat(other).isInstanceOfSatisfying(Rejected.class, r -> {
            assertThat(r.code()).isEqualTo(Rejected.ILLEGAL_EVENT);
            assertThat(r.field()).contains("events[0].type");
        });

        Claimed claim = agent.claim(id, ClaimRequest.of("worker-a", "v1")).claimedOrThrow();
        assertThat(claim.epoch()).isEqualTo(1);
        assertThat(claim.resumed()).isFalse();
        assertThat(claim.lastSeq()).isEqualTo(2);

        AppendBatch turn = AppendBatch.forStep("turn-1", NewEvent.userMessage("Start with src/Foo.java."),
                        NewEvent.assistantMessage("Reading the file first.", List.of(new ToolCall("call-1", "read_file", "{\"path\":\"src/Foo.java\"}")),
                                new TokenUsage(812, 40)))
                .expectingSeq(claim.lastSeq());
        SessionWriter writer = agent.writer(claim);
        Appended appended = writer.append(turn).appendedOrThrow();
        assertThat(appended.seqs()).containsExactly(3L, 4L);
        assertThat(appended.allDuplicates()).isFalse();
        assertThat(appended.lastSeq()).isEqualTo(4);
        assertThat(writer.lastSeq()).isEqualTo(4);

        List<SessionEvent> log = agent.allEvents(id).orElseThrow();
        assertThat(log).extracting(SessionEvent::type).containsExactly("session_started", "session_claimed", "user_message", "assistant_message");
        assertThat(log.subList(2, 4)).extracting(SessionEvent::eventId).isEqualTo(turn.eventIds(id));
        assertThat(log.get(3).field("toolCalls").orElseThrow().get(0).get("callId").asText()).isEqualTo("call-1");
        assertThat(log.get(2).actor()).isEqualTo(new Actor("USER", "acme-agent"));
        assertThat(agent.session(id)).hasValueSatisfying(s -> {
            assertThat(s.lastSeq()).isEqualTo(4);
            assertThat(s.epoch()).isEqualTo(1);
            assertThat(s.workerId()).contains("worker-a");
            assertThat(s.sessionStartedAt()).isPresent().isEqualTo(claim.sessionStartedAt());
        });
    }

    @Test
    void aRetriedAppend_returnsTheOriginalSeqs_andTheLogHoldsEachEventOnce() {
        String id = newSession("retry");
        AppendBatch step = AppendBatch.forStep("turn-1", NewEvent.userMessage("one"), NewEvent.userMessage("two"),
                NewEvent.planUpdated(List.of(PlanItem.inProgress("rename the class"))));
        Appended first = agent.append(id, step).appendedOrThrow();
        assertThat(first.seqs()).containsExactly(2L, 3L, 4L);
        agent.append(id, AppendBatch.forStep("turn-2", NewEvent.userMessage("three"))).appendedOrThrow();

        // a worker restarted after a crash sends its last step again, with a client of its own
        Appended again;
        try (TetherClient restarted = TetherClient.create(options("dev-acme-agent"))) {
            again = restarted.append(id, step).appendedOrThrow();
        }
        assertThat(again.seqs()).isEqualTo(first.seqs());
        assertThat(again.allDuplicates()).isTrue();
        assertThat(again.lastSeq()).isEqualTo(5);

        List<SessionEvent> log = agent.allEvents(id).orElseThrow();
        assertThat(log).extracting(SessionEvent::seq).containsExactlyElementsOf(LongStream.rangeClosed(1, 5).boxed().toList());
        assertThat(log).extracting(SessionEvent::eventId).doesNotHaveDuplicates();

        // and in Kafka itself: one record per event, read raw, then the README's plain consumer
        String topic = prefix + "session-events";
        List<String> raw = TopicReader.readAll(topic).stream()
                .filter(r -> SessionEventKeys.decode(r.key()).sessionId().equals(id))
                .map(r -> SessionEventKeys.decode(r.key()).seq() + "")
                .toList();
        assertThat(raw).containsExactly("1", "2", "3", "4", "5");
        var read = PlainKafkaSessionReader.read(TetherStack.shared().bootstrapServers(), TetherStack.shared().registryUrl(), topic, id, 1, 5,
                PATIENCE);
        assertThat(read).extracting(PlainKafkaSessionReader.Read::seq).containsExactly(1L, 2L, 3L, 4L, 5L);
        assertThat(read).extracting(PlainKafkaSessionReader.Read::eventId).containsExactlyElementsOf(log.stream().map(SessionEvent::eventId).toList());
        assertThat(read.get(1).type()).isEqualTo("user_message");
        assertThat(((org.apache.avro.generic.GenericRecord) ((org.apache.avro.generic.GenericRecord) read.get(1).event().get("payload"))
                .get("userMessage")).get("content").toString()).isEqualTo("one");
    }

    @Test
    void aStaleExpectedSeq_isAConflict_thatNamesTheSessionsLastSeq() {
        String id = newSession("conflict");
        agent.append(id, AppendBatch.forStep("turn-1", NewEvent.userMessage("a"), NewEvent.userMessage("b")).expectingSeq(1)).appendedOrThrow();
        AppendResult stale = agent.append(id, AppendBatch.forStep("turn-2", NewEvent.userMessage("c")).expectingSeq(1));
        assertThat(stale).isInstanceOfSatisfying(Conflict.class, c -> assertThat(c.lastSeq()).isEqualTo(3));
        assertThat(agent.allEvents(id).orElseThrow()).hasSize(3);
        // re-read, decide again
        Appended retried = agent.append(id, AppendBatch.forStep("turn-2", NewEvent.userMessage("c")).expectingSeq(3)).appendedOrThrow();
        assertThat(retried.seqs()).containsExactly(4L);
    }

    @Test
    void anotherWorkersClaim_fencesTheFirst_andOtherRefusalsAreTyped() {
        String id = newSession("fence");
        SessionWriter a = agent.writer(agent.claim(id, ClaimRequest.of("worker-a", "v1")).claimedOrThrow());
        a.append("turn-1", NewEvent.userMessage("working")).appendedOrThrow();

        Claimed b = agent.claim(id, ClaimRequest.of("worker-b", "v1")).claimedOrThrow();
        assertThat(b.epoch()).isEqualTo(2);
        assertThat(b.resumeReason()).contains("CRASH");
        AppendResult fenced = a.append("turn-2", NewEvent.userMessage("still working?"));
        assertThat(fenced).isInstanceOfSatisfying(Fenced.class, f -> assertThat(f.currentEpoch()).isEqualTo(2));
        // fencing is checked before expectedSeq: a fenced worker learns it is fenced
        assertThat(agent.append(id, AppendBatch.forStep("turn-2-stale", NewEvent.userMessage("x")).withEpoch(1).expectingSeq(0)))
                .isInstanceOf(Fenced.class);
        assertThat(agent.writer(b).append("turn-2", NewEvent.userMessage("taking over"))).isInstanceOf(Appended.class);

        assertThat(agent.claim(id, ClaimRequest.of("worker-c", "v2"))).isInstanceOfSatisfying(VersionPinned.class,
                p -> assertThat(p.message()).contains("v1", "v2"));
        assertThat(agent.claim("no-such-" + id, ClaimRequest.of("worker-c", "v1"))).isInstanceOf(NotFound.class);
        assertThat(agent.append("no-such-" + id, AppendBatch.forStep("t", NewEvent.userMessage("x")))).isInstanceOf(NotFound.class);

        // events only Tether writes, and malformed ones, are refused with the field named
        assertThat(agent.append(id, AppendBatch.forStep("turn-3", NewEvent.of("session_claimed", java.util.Map.of("workerId", "me",
                "epoch", 9, "harnessVersion", "v1"))))).isInstanceOfSatisfying(Rejected.class, r -> {
                    assertThat(r.status()).isEqualTo(422);
                    assertThat(r.field()).contains("events[0].type");
                });
        assertThat(agent.append(id, AppendBatch.forStep("turn-3", NewEvent.userMessage("x"), NewEvent.of("tool_result",
                java.util.Map.of("status", "OK"))))).isInstanceOfSatisfying(Rejected.class, r -> {
                    assertThat(r.status()).isEqualTo(400);
                    assertThat(r.field()).hasValueSatisfying(f -> assertThat(f).startsWith("events[1]"));
                });
    }

    @Test
    void aSubscription_catchesUpThenFollowsLive_andResumesAfterTheSessionServiceIsKilledAndRestarted() throws Exception {
        String id = newSession("live");
        for (int i = 1; i <= 3; i++) {
            agent.append(id, AppendBatch.forStep("turn-" + i, NewEvent.userMessage("before " + i))).appendedOrThrow();
        }
        var events = new CopyOnWriteArrayList<SessionEvent>();
        var disconnects = new CopyOnWriteArrayList<Exception>();
        var listener = new SessionEventListener() {
            @Override
            public void onEvent(SessionEvent event) {
                events.add(event);
            }

            @Override
            public void onDisconnected(long lastSeq, Exception cause) {
                disconnects.add(cause);
            }
        };
        try (Subscription subscription = agent.subscribe(id, 1, listener)) {
            await().atMost(PATIENCE).until(() -> events.size() >= 4);                       // catch-up
            for (int i = 4; i <= 5; i++) {
                agent.append(id, AppendBatch.forStep("turn-" + i, NewEvent.userMessage("live " + i))).appendedOrThrow();
            }
            await().atMost(PATIENCE).until(() -> events.size() >= 6);                       // live

            sessions.kill();
            await().atMost(PATIENCE).until(() -> !disconnects.isEmpty());
            sessions.start();
            for (int i = 6; i <= 8; i++) {
                agent.append(id, AppendBatch.forStep("turn-" + i, NewEvent.userMessage("after the restart " + i))).appendedOrThrow();
            }
            await().atMost(PATIENCE).until(() -> events.size() >= 9);
            Thread.sleep(1_000); // anything repeated would arrive now
            assertThat(subscription.isOpen()).isTrue();
            assertThat(subscription.lastSeq()).isEqualTo(9);
        }
        assertThat(events).extracting(SessionEvent::seq).containsExactlyElementsOf(LongStream.rangeClosed(1, 9).boxed().toList());
        assertThat(events.get(8).text("content")).contains("after the restart 8");
        assertThat(disconnects).isNotEmpty();
    }

    @Test
    void awaitEvent_findsAnEventAppendedLater() throws Exception {
        String id = newSession("await");
        var waiter = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return agent.awaitEvent(id, 2, e -> e.type().equals("step_completed"), PATIENCE);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        agent.append(id, AppendBatch.forStep("turn-1", NewEvent.userMessage("go"))).appendedOrThrow();
        agent.append(id, AppendBatch.forStep("turn-2", NewEvent.stepCompleted(1, "renamed", true))).appendedOrThrow();
        Optional<SessionEvent> found = waiter.get(3, java.util.concurrent.TimeUnit.MINUTES);
        assertThat(found).hasValueSatisfying(e -> assertThat(e.seq()).isEqualTo(3));
        assertThatThrownBy(() -> agent.awaitEvent("no-such-" + id, 1, e -> true, PATIENCE)).isInstanceOf(TetherException.class);
    }

    @Test
    void checkpointContextRecoveryAndCalls_followTheLog() {
        String id = newSession("projection");
        Claimed claim = agent.claim(id, ClaimRequest.of("worker-a", "v1")).claimedOrThrow();
        Appended turn = agent.writer(claim).append("turn-1", NewEvent.userMessage("Start with src/Foo.java."),
                NewEvent.planUpdated(List.of(PlanItem.inProgress("rename the class"), PlanItem.pending("fix the callers"))),
                NewEvent.assistantMessage("Reading the file first.", List.of(new ToolCall("call-1", "read_file", "{\"path\":\"src/Foo.java\"}")),
                        new TokenUsage(812, 40))).appendedOrThrow();

        Checkpoint checkpoint = agent.checkpoint(id, ReadAt.atLeast(turn.lastSeq())).orElseThrow();
        assertThat(checkpoint.lastSeq()).isEqualTo(turn.lastSeq());
        assertThat(checkpoint.objective()).isEqualTo("Rename Foo to Bar in src/");
        assertThat(checkpoint.constraints()).containsExactly("keep the tests green");
        assertThat(checkpoint.plan()).containsExactly(PlanItem.inProgress("rename the class"), PlanItem.pending("fix the callers"));
        assertThat(checkpoint.usedTokens()).isEqualTo(new TokenUsage(812, 40));
        assertThat(checkpoint.call("call-1")).hasValueSatisfying(c -> {
            assertThat(c.state()).isEqualTo("REQUESTED");
            assertThat(c.idempotencyKey()).isEqualTo(id + "/" + turn.seqs().get(2) + "/call-1");
        });
        assertThat(checkpoint.lease()).hasValueSatisfying(l -> assertThat(l.workerId()).isEqualTo("worker-a"));
        assertThat(agent.checkpoint(id, ReadAt.seq(1)).orElseThrow().lastSeq()).isEqualTo(1);

        ModelContext openai = agent.context(id, ContextQuery.of(ContextFormat.OPENAI).at(ReadAt.atLeast(turn.lastSeq()))).orElseThrow();
        assertThat(openai.format()).isEqualTo("openai");
        assertThat(openai.atSeq()).isEqualTo(turn.lastSeq());
        assertThat(openai.messages().get(0).get("role").asText()).isEqualTo("system");
        assertThat(openai.messages().get(1).get("content").asText()).isEqualTo("Rename Foo to Bar in src/");
        assertThat(openai.messagesJson()).contains("\"tool_call_id\":\"call-1\"");       // the dangling call is closed
        assertThat(openai.tokens()).isPositive();
        ModelContext anthropic = agent.context(id, ContextFormat.ANTHROPIC).orElseThrow();
        assertThat(anthropic.system()).contains("You are a careful engineer.");

        Claimed takeover = agent.claim(id, ClaimRequest.of("worker-b", "v1")).claimedOrThrow();
        RecoveryReport report = agent.recovery(id, ReadAt.atLeast(takeover.lastSeq())).orElseThrow();
        assertThat(report.identity().workerId()).contains("worker-b");
        assertThat(report.identity().epoch()).isEqualTo(2);
        assertThat(report.position().lastSeq()).isEqualTo(takeover.lastSeq());
        assertThat(report.effects().inFlight()).extracting(RecoveryReport.Call::callId).containsExactly("call-1");
        assertThat(report.nextSafeActions()).anySatisfy(a -> assertThat(a).contains("call-1"));

        CallRecord call = agent.call(id, "call-1").orElseThrow();
        assertThat(call.requestSeq()).isEqualTo(turn.seqs().get(2));
        assertThat(call.requestedBy()).hasValueSatisfying(e -> assertThat(e.type()).isEqualTo("assistant_message"));
        assertThat(call.authorizedSeq()).isEmpty();

        assertThat(agent.call(id, "no-such-call")).isEmpty();
        assertThat(agent.checkpoint("no-such-" + id)).isEmpty();
        assertThat(agent.recovery("no-such-" + id)).isEmpty();
    }

    /**
     * A framework's state, small and over the offload threshold, goes in as {@code framework_state}, comes back with the
     * session's events (the large one as its artifact, served whole), and leaves the checkpoint, the recovery report and
     * the model context as they were but for the position.
     */
    @Test
    void frameworkState_isKeptAndReadBack_offloadedWhenLarge_andTheCheckpointAndContextIgnoreIt() throws Exception {
        String id = newSession("framework");
        Claimed claim = agent.claim(id, ClaimRequest.of("worker-a", "v1")).claimedOrThrow();
        SessionWriter writer = agent.writer(claim);
        Appended turn = writer.append("turn-1", NewEvent.userMessage("Start with src/Foo.java."),
                NewEvent.assistantMessage("Reading the file first.", List.of(new ToolCall("call-1", "read_file", "{\"path\":\"src/Foo.java\"}")),
                        new TokenUsage(812, 40))).appendedOrThrow();
        Checkpoint before = agent.checkpoint(id, ReadAt.atLeast(turn.lastSeq())).orElseThrow();
        var contextsBefore = new java.util.EnumMap<ContextFormat, ModelContext>(ContextFormat.class);
        for (ContextFormat format : ContextFormat.values()) {
            contextsBefore.put(format, agent.context(id, ContextQuery.of(format).at(ReadAt.atLeast(turn.lastSeq()))).orElseThrow());
        }
        RecoveryReport reportBefore = agent.recovery(id, ReadAt.atLeast(turn.lastSeq())).orElseThrow();

        String small = "{\"v\":1,\"channel_versions\":{\"messages\":2,\"hidden_channel\":1},\"versions_seen\":{},\"é\":\"ü\"}";
        var values = new StringBuilder("{\"v\":1,\"channel_values\":{\"hidden_channel\":[");
        for (int i = 0; i < 4_000; i++) {
            values.append(i == 0 ? "" : ",").append("{\"step\":").append(i).append(",\"note\":\"never shown to the model\"}");
        }
        String large = values.append("]}}").toString();
        assertThat(large.getBytes(java.nio.charset.StandardCharsets.UTF_8).length).as("over the 64 KiB threshold").isGreaterThan(64 * 1024);
        Appended states = writer.append("checkpoint-1", NewEvent.frameworkState("langgraph", "checkpoint", "[\"\",\"cp-1\"]", small),
                NewEvent.frameworkState("langgraph", "writes", "[\"\",\"cp-1\",\"task-1\"]", large)).appendedOrThrow();
        assertThat(states.seqs()).containsExactly(turn.lastSeq() + 1, turn.lastSeq() + 2);

        List<SessionEvent> read = agent.events(id, states.seqs().get(0), 10).orElseThrow().events();
        assertThat(read).extracting(SessionEvent::type).containsExactly("framework_state", "framework_state");
        SessionEvent inline = read.get(0);
        assertThat(inline.actor().kind()).isEqualTo("MODEL");
        assertThat(inline.json().get("framework").asText()).isEqualTo("langgraph");
        assertThat(inline.json().get("kind").asText()).isEqualTo("checkpoint");
        assertThat(inline.json().get("key").asText()).isEqualTo("[\"\",\"cp-1\"]");
        assertThat(inline.json().get("content").asText()).isEqualTo(small);
        assertThat(inline.json().has("artifact")).isFalse();
        SessionEvent offloaded = read.get(1);
        var artifact = offloaded.json().get("artifact");
        String sha256 = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                .digest(large.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        assertThat(artifact.get("sha256").asText()).isEqualTo(sha256);
        assertThat(artifact.get("size").asLong()).isEqualTo(large.getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
        assertThat(offloaded.json().get("content").asText()).as("the preview").isEqualTo(large.substring(0, 512));
        assertThat(offloaded.json().get("kind").asText()).isEqualTo("writes");
        var http = java.net.http.HttpClient.newHttpClient();
        var served = http.send(java.net.http.HttpRequest.newBuilder(URI.create(sessions.baseUrl() + "/v1/artifacts/" + sha256))
                .header("Authorization", "Bearer dev-acme-agent").build(), java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(served.statusCode()).isEqualTo(200);
        assertThat(served.body()).isEqualTo(large);

        Checkpoint after = agent.checkpoint(id, ReadAt.atLeast(states.lastSeq())).orElseThrow();
        assertThat(after.lastSeq()).isEqualTo(states.lastSeq());
        assertThat(withoutPosition(after.json())).as("the checkpoint, but for its position").isEqualTo(withoutPosition(before.json()));
        for (ContextFormat format : ContextFormat.values()) {
            ModelContext now = agent.context(id, ContextQuery.of(format).at(ReadAt.atLeast(states.lastSeq()))).orElseThrow();
            List<com.fasterxml.jackson.databind.JsonNode> then = contextsBefore.get(format).messages();
            assertThat(now.atSeq()).isEqualTo(states.lastSeq());
            assertThat(now.messages().subList(0, now.messages().size() - 1)).as("%s but for its volatile tail", format)
                    .isEqualTo(then.subList(0, then.size() - 1));
            assertThat(now.stablePrefixSize()).isEqualTo(contextsBefore.get(format).stablePrefixSize());
            assertThat(now.messagesJson()).doesNotContain("langgraph", "hidden_channel", "never shown", "cp-1");
        }
        RecoveryReport report = agent.recovery(id, ReadAt.atLeast(states.lastSeq())).orElseThrow();
        assertThat(report.position().lastSeq()).isEqualTo(states.lastSeq());
        assertThat(report.effects()).isEqualTo(reportBefore.effects());
        assertThat(report.nextSafeActions()).isEqualTo(reportBefore.nextSafeActions());
    }

    /** A checkpoint's JSON without what any event moves: lastSeq, the log position and the time of the latest event. */
    private static com.fasterxml.jackson.databind.JsonNode withoutPosition(String checkpointJson) throws IOException {
        var node = (com.fasterxml.jackson.databind.node.ObjectNode) new com.fasterxml.jackson.databind.ObjectMapper().readTree(checkpointJson);
        node.remove(List.of("lastSeq", "position", "updatedAt"));
        return node;
    }

    @Test
    void sessionsAreListedPerTenant_forkedAndErased() {
        String id = newSession("list");
        await().atMost(PATIENCE).until(() -> agent.sessions(SessionInfo.Status.OPEN).stream().anyMatch(s -> s.sessionId().equals(id)));
        assertThat(agent.sessions(SessionInfo.Status.CLOSED)).noneMatch(s -> s.sessionId().equals(id));
        try (TetherClient globex = TetherClient.create(options("dev-globex-agent"))) {
            assertThat(globex.session(id)).isEmpty();                                           // another tenant's: not found
            assertThat(globex.sessions()).noneMatch(s -> s.sessionId().equals(id));
            assertThat(globex.append(id, AppendBatch.forStep("t", NewEvent.userMessage("x")))).isInstanceOf(NotFound.class);
        }

        agent.append(id, AppendBatch.forStep("turn-1", NewEvent.userMessage("a"), NewEvent.userMessage("b"))).appendedOrThrow();
        Forked fork = agent.fork(id, 2, id + "-fork").forkedOrThrow();
        assertThat(fork).usingRecursiveComparison().ignoringFields("sessionStartedAt")
                .isEqualTo(new Forked(id + "-fork", id, 2, 1, "v1", "claude-sonnet-4"));
        assertThat(fork.sessionStartedAt()).isEqualTo(agent.events(fork.sessionId(), 1, 1).map(p -> p.events().get(0).occurredAt()));
        assertThat(agent.fork(id, 2, id + "-fork").forkedOrThrow()).as("a retried fork").isEqualTo(fork);
        assertThat(agent.allEvents(fork.sessionId()).orElseThrow()).extracting(SessionEvent::type).containsExactly("session_forked");

        Erased erased = agent.erase(fork.sessionId()).erasedOrThrow();
        assertThat(erased.events()).isEqualTo(1);
        await().atMost(PATIENCE).until(() -> agent.session(fork.sessionId()).isEmpty());
        assertThat(agent.erase(fork.sessionId())).isInstanceOf(NotFound.class);
    }

    /**
     * A worker still running for an erased session holds an epoch and seqs that a session made again under the id
     * reaches too: its writer's appends carry the session's start, and are not found rather than written into the new one.
     */
    @Test
    void aWriterForAnErasedSession_isNotFound_inTheSessionMadeAgainUnderItsId_atTheSameEpoch() {
        String id = newSession("stale");
        Claimed stale = agent.claim(id, ClaimRequest.of("worker-a", "v1")).claimedOrThrow();
        assertThat(stale.sessionStartedAt()).isEqualTo(agent.events(id, 1, 1).map(p -> p.events().get(0).occurredAt()));
        SessionWriter writer = agent.writer(stale);
        writer.append("turn-1", NewEvent.userMessage("for the first session")).appendedOrThrow();

        agent.erase(id).erasedOrThrow();
        await().atMost(PATIENCE).until(() -> agent.session(id).isEmpty());
        agent.createSession(NewSession.of("Something else entirely", "claude-sonnet-4", ToolMode.WRITE).withSessionId(id)).createdOrThrow();
        Claimed again = agent.claim(id, ClaimRequest.of("worker-b", "v1")).claimedOrThrow();
        assertThat(again.epoch()).isEqualTo(stale.epoch());
        assertThat(again.sessionStartedAt()).isNotEqualTo(stale.sessionStartedAt());

        assertThat(writer.append("turn-2", NewEvent.userMessage("late, for the first session"))).isInstanceOf(NotFound.class);
        assertThat(agent.writer(again).append("turn-2", NewEvent.userMessage("for the new session"))).isInstanceOf(Appended.class);
        assertThat(agent.allEvents(id).orElseThrow()).extracting(SessionEvent::type)
                .containsExactly("session_started", "session_claimed", "user_message");
    }

    @Test
    void aSubagent_startsUnderItsParentsLimits_andOnlyItsOutcomeReachesTheParent() throws Exception {
        String parent = "parent-" + UUID.randomUUID().toString().substring(0, 8);
        agent.createSession(NewSession.of("Rename Foo to Bar in src/", "claude-sonnet-4", ToolMode.WRITE).withSessionId(parent)
                .withTokenBudget(1_000)).createdOrThrow();
        NewSubagent request = NewSubagent.of("Find the callers of Foo", ToolMode.READ_ONLY).withTokenBudget(300);

        SubagentStarted child = agent.startSubagent(parent, request).startedOrThrow();
        assertThat(child.parentSessionId()).isEqualTo(parent);
        assertThat(child.toolMode()).isEqualTo(ToolMode.READ_ONLY);
        assertThat(child.modelId()).as("pinned as its parent is").isEqualTo("claude-sonnet-4");
        assertThat(child.sessionStartedAt()).isEqualTo(agent.events(child.sessionId(), 1, 1).map(p -> p.events().get(0).occurredAt()));
        SubagentStarted again = agent.startSubagent(parent, request.withSessionId(child.sessionId())).startedOrThrow();
        assertThat(again.sessionId()).as("the same request for the same id: the same subagent").isEqualTo(child.sessionId());
        assertThat(agent.startSubagent(parent, NewSubagent.of("Spend more", ToolMode.READ_ONLY).withTokenBudget(5_000)))
                .isInstanceOfSatisfying(Rejected.class, r -> assertThat(r.field()).contains("tokenBudget"));
        assertThat(agent.startSubagent("no-such-" + parent, request)).isInstanceOf(NotFound.class);

        agent.append(child.sessionId(), AppendBatch.forStep("done", NewEvent.of("session_closed", java.util.Map.of("outcome",
                "Foo is called from 3 places")))).appendedOrThrow();
        SessionEvent result = agent.awaitEvent(parent, 1, e -> e.type().equals("subagent_result"), PATIENCE).orElseThrow();
        assertThat(result.text("childSessionId")).contains(child.sessionId());
        assertThat(result.text("outcome")).contains("Foo is called from 3 places");
    }

    /** A session id is a name: free again once its session is erased. A fork of the erased session keeps to it. */
    @Test
    void aForksParent_erasedAndMadeAgainUnderItsId_isGoneForTheFork_neverTheNewSession() {
        String id = newSession("reborn");
        agent.append(id, AppendBatch.forStep("turn-1", NewEvent.userMessage("the first parent's words"))).appendedOrThrow();
        Forked fork = agent.fork(id, 2, id + "-fork").forkedOrThrow();
        ContextQuery query = ContextQuery.of(ContextFormat.OPENAI).at(ReadAt.atLeast(1));
        assertThat(agent.context(fork.sessionId(), query).orElseThrow().messagesJson()).contains("the first parent's words");

        agent.erase(id).erasedOrThrow();
        await().atMost(PATIENCE).until(() -> agent.session(id).isEmpty());
        agent.createSession(NewSession.of("Something else entirely", "claude-sonnet-4", ToolMode.WRITE).withSessionId(id)).createdOrThrow();
        Appended again = agent.append(id, AppendBatch.forStep("turn-1", NewEvent.userMessage("the new session's words"))).appendedOrThrow();
        assertThat(again.lastSeq()).as("as long as the parent was at the fork point").isEqualTo(2);
        await().atMost(PATIENCE).until(() -> agent.checkpoint(id).map(c -> c.lastSeq() == 2).orElse(false));

        assertThatThrownBy(() -> agent.context(fork.sessionId(), query)).isInstanceOfSatisfying(TetherException.class,
                e -> assertThat(e.error()).hasValueSatisfying(error -> {
                    assertThat(error.status()).isEqualTo(410);
                    assertThat(error.code()).isEqualTo("parent_gone");
                }));
    }

    @Test
    void operatorsWeightAndDrainHarnessVersions_agentsMayNot() {
        try (TetherClient operator = TetherClient.create(options("dev-operator"))) {
            assertThat(operator.harnessVersions()).anySatisfy(v -> assertThat(v.version()).isEqualTo("v1"));
            List<HarnessVersion> weighted = operator.putHarnessVersion(HarnessVersionUpdate.active("v2", 10).withModelId("model-2"))
                    .versionsOrThrow();
            assertThat(weighted).contains(new HarnessVersion("v2", 10, "ACTIVE", false, Optional.of("model-2"), 0, 10));
            assertThat(operator.setWeight("v2", 20).versionsOrThrow()).contains(new HarnessVersion("v2", 20, "ACTIVE", false,
                    Optional.of("model-2"), 0, 20));
            assertThat(operator.setWeight("v3", 81)).as("v2 20 + v3 81 is more than 100 percent")
                    .isInstanceOfSatisfying(Rejected.class, r -> {
                        assertThat(r.status()).isEqualTo(400);
                        assertThat(r.field()).contains("weight");
                    });
            List<HarnessVersion> drained = operator.drain("v2").versionsOrThrow();
            assertThat(drained).filteredOn(v -> v.version().equals("v2")).singleElement().satisfies(v -> {
                assertThat(v.state()).isEqualTo("DRAINING");
                assertThat(v.weight()).isZero();
                assertThat(v.modelId()).contains("model-2");
                assertThat(v.drained()).isTrue();
            });
        }
        assertThat(agent.putHarnessVersion(HarnessVersionUpdate.active("v3", 5))).isInstanceOfSatisfying(Rejected.class,
                r -> assertThat(r.status()).isEqualTo(403));
        assertThatThrownBy(() -> agent.harnessVersions()).isInstanceOf(TetherException.class);
    }

    @Test
    void aRefusedToken_isThrown_notReturned() {
        try (TetherClient wrong = TetherClient.create(options("not-a-key"))) {
            assertThatThrownBy(() -> wrong.session("anything")).isInstanceOf(TetherException.class)
                    .satisfies(e -> assertThat(((TetherException) e).error().map(ApiError::status)).contains(401));
            assertThatThrownBy(() -> wrong.append("anything", AppendBatch.forStep("t", NewEvent.userMessage("x"))))
                    .isInstanceOf(TetherException.class);
        }
    }
}
