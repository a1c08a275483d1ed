package dev.tether.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.avro.Checkpoint;
import dev.tether.client.AppendBatch;
import dev.tether.client.Appended;
import dev.tether.client.NewEvent;
import dev.tether.client.NewSession;
import dev.tether.client.ReadAt;
import dev.tether.client.RetryPolicy;
import dev.tether.client.SessionInfo;
import dev.tether.client.TetherClient;
import dev.tether.client.TetherOptions;
import dev.tether.client.TokenUsage;
import dev.tether.client.ToolCall;
import dev.tether.client.ToolMode;
import dev.tether.kit.kafka.AvroSerdes;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import dev.tether.testing.ServiceProcess;
import dev.tether.testing.TetherStack;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The CLI against the real thing: the packaged session-service, projector-service and
 * approval-service as processes, under a topic prefix of their own, on the real broker and registry.
 * Commands run in this JVM ({@link CliRun}), and the Kafka ones also from the shaded
 * {@code target/tether.jar} as a process, so the packaging is tested too. The test writes through the
 * SDK and reads through the CLI: every assertion is on what the CLI printed.
 */
class TetherCliIT {

    private static final Duration PATIENCE = Duration.ofMinutes(2);
    private static final ObjectMapper JSON = new ObjectMapper();

    private static String prefix;
    private static Path workDir;
    private static ServiceProcess sessions;
    private static ServiceProcess projector;
    private static ServiceProcess approvals;
    private static TetherClient agent;
    private static Map<String, String> env;

    @BeforeAll
    static void start() throws IOException {
        prefix = "cli-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        workDir = Files.createTempDirectory("cli-it-");
        var serviceEnv = ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix, "TETHER_SESSIONS_BLOBS_DIR", workDir.resolve("blobs").toString(),
                "TETHER_WORKSPACE_ROOT", Files.createDirectories(workDir.resolve("workspaces")).toString());
        sessions = new ServiceProcess(Path.of("../session-service").toAbsolutePath(), workDir.resolve("session-service"), serviceEnv, List.of());
        projector = new ServiceProcess(Path.of("../projector-service").toAbsolutePath(), workDir.resolve("projector-service"), serviceEnv,
                List.of());
        approvals = new ServiceProcess(Path.of("../approval-service").toAbsolutePath(), workDir.resolve("approval-service"), serviceEnv,
                List.of());
        sessions.start();
        projector.start();
        approvals.start();
        env = Map.of("TETHER_SESSION_URL", sessions.baseUrl(), "TETHER_PROJECTOR_URL", projector.baseUrl(),
                "TETHER_APPROVALS_URL", approvals.baseUrl(), "TETHER_KAFKA_BOOTSTRAP", TetherStack.shared().bootstrapServers(),
                "TETHER_REGISTRY_URL", TetherStack.shared().registryUrl(), "TETHER_TOPICS_PREFIX", prefix, "TETHER_TIMEOUT", "60s");
        agent = TetherClient.create(TetherOptions.of(URI.create(sessions.baseUrl()), URI.create(projector.baseUrl()),
                        URI.create(approvals.baseUrl())).withToken("dev-acme-agent").withTimeout(Duration.ofSeconds(60))
                .withRetry(RetryPolicy.of(12, Duration.ofMillis(250), Duration.ofSeconds(5))));
    }

    @AfterAll
    static void stop() throws IOException {
        if (agent != null) {
            agent.close();
        }
        for (ServiceProcess service : new ServiceProcess[] {approvals, projector, sessions}) {
            if (service != null) {
                service.stop();
            }
        }
        if (workDir != null) {
            try (var paths = Files.walk(workDir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    void sessions_listShowForkTailAndErase_printWhatTheServicesHold() throws Exception {
        String id = newSession("flow", ToolMode.WRITE);
        long lastSeq = append(id, "turn-1", NewEvent.userMessage("Start with src/Foo.java."),
                NewEvent.assistantMessage("Reading the file first.", List.of(), new TokenUsage(812, 40))).lastSeq();
        agent.checkpoint(id, ReadAt.atLeast(lastSeq)).orElseThrow();

        CliRun list = CliRun.run(env, "sessions", "list");
        assertThat(list.exitCode()).as(list.toString()).isZero();
        assertThat(list.out()).containsPattern("(?m)^" + id + " +open +3 +0 +- +v1 +claude-sonnet-4 +acme-agent +-$");

        CliRun show = CliRun.run(env, "sessions", "show", id);
        assertThat(show.exitCode()).as(show.toString()).isZero();
        assertThat(show.out()).contains("objective      Rename Foo to Bar in src/\n", "checkpoint at  seq 3\n", "tokens         812 in, 40 out\n");

        CliRun fork = CliRun.run(env, "sessions", "fork", id, "--at-seq", "2", "--new-id", id + "-b");
        assertThat(fork.out()).isEqualTo("forked " + id + " at seq 2 into " + id + "-b (pinned to v1, claude-sonnet-4)\n");
        JsonNode listed = JSON.readTree(CliRun.run(env, "sessions", "list", "--json").out());
        assertThat(listed.get("sessions").findValuesAsText("sessionId")).contains(id, id + "-b");

        // follow the log: what is there, then what comes, until the session is erased under it
        var out = new StringWriter();
        var err = new StringWriter();
        CompletableFuture<Integer> tail = CompletableFuture.supplyAsync(() -> TetherCli.commandLine(env)
                .setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true)).execute("sessions", "tail", id));
        await().atMost(PATIENCE).until(() -> out.toString().contains("assistant_message"));
        append(id, "turn-2", NewEvent.userMessage("Now the callers."));
        await().atMost(PATIENCE).until(() -> out.toString().contains("\"Now the callers.\""));

        CliRun erase = CliRun.run(env, "sessions", "erase", id);
        assertThat(erase.out()).isEqualTo("erased " + id + ": 4 events tombstoned\n");
        assertThat(tail.get(2, TimeUnit.MINUTES)).isEqualTo(1);
        assertThat(out.toString().lines()).hasSize(5).first().asString().startsWith("  SEQ  TIME");
        assertThat(err.toString()).isEqualTo("tether: session " + id + " was erased after seq 4\n");
        assertThat(CliRun.run(env, "sessions", "list").out()).doesNotContain(id + " ");
    }

    @Test
    void contextAndRecovery_printTheProjectorsAnswers() throws Exception {
        String id = newSession("context", ToolMode.WRITE);
        long lastSeq = append(id, "turn-1", NewEvent.userMessage("Start with src/Foo.java."),
                NewEvent.assistantMessage("Reading the file first.", List.of(new ToolCall("call-1", "read_file", "{\"path\":\"src/Foo.java\"}")),
                        new TokenUsage(812, 40))).lastSeq();

        CliRun context = CliRun.run(env, "context", id, "--format", "anthropic", "--min-seq", Long.toString(lastSeq));
        assertThat(context.exitCode()).as(context.toString()).isZero();
        // the approval-service authorizes the read by policy meanwhile: the context is at least at lastSeq
        assertThat(context.out()).startsWith("anthropic context of " + id + " at seq ")
                .contains("[system]\n    You are a careful engineer.\n", "-> call-1 read_file {\"path\":\"src/Foo.java\"}");
        JsonNode json = JSON.readTree(CliRun.run(env, "context", id, "--json").out());
        assertThat(json.get("format").asText()).isEqualTo("openai");
        assertThat(json.get("messages").get(0).get("content").asText()).isEqualTo("You are a careful engineer.");

        CliRun recovery = CliRun.run(env, "recovery", id, "--min-seq", Long.toString(lastSeq));
        assertThat(recovery.exitCode()).as(recovery.toString()).isZero();
        assertThat(recovery.out()).contains("session            " + id + " (tenant acme, owner acme-agent)\n", "in flight  call-1 read_file")
                .containsPattern("next safe actions  - .*call-1");
    }

    @Test
    void approvals_aGatedCallIsListed_andGrantingItRecordsTheDecision() throws Exception {
        String id = newSession("gated", ToolMode.WRITE);
        append(id, "turn-1", NewEvent.assistantMessage("Let me run the tests.",
                List.of(new ToolCall("call-1", "run_command", "{\"command\":\"make test\"}")), new TokenUsage(100, 20)));

        JsonNode item = await().atMost(PATIENCE).pollInterval(Duration.ofMillis(500)).until(() -> {
            for (JsonNode i : JSON.readTree(CliRun.run(env, "approvals", "list", "--json").out()).get("approvals")) {
                if (i.get("sessionId").asText().equals(id)) {
                    return i;
                }
            }
            return null;
        }, i -> i != null);
        String itemId = item.get("id").asText();
        assertThat(CliRun.run(env, "approvals", "list").out()).containsPattern(java.util.regex.Pattern.quote(itemId) + " +APPROVAL +PENDING +run_command +call-1 ");
        assertThat(CliRun.run(env, "approvals", "show", itemId).out()).contains("shown      make test\n");

        CliRun grant = CliRun.run(env, "approvals", "grant", itemId, "--reason", "the tests only read");
        assertThat(grant.exitCode()).as(grant.toString()).isZero();
        assertThat(grant.out()).startsWith("granted " + itemId + ": GRANTED (GRANT_ONCE by acme-approver at seq ")
                .endsWith(": the tests only read)\n");
        CliRun again = CliRun.run(env, "approvals", "deny", itemId, "--reason", "changed my mind");
        assertThat(again.exitCode()).isEqualTo(1);
        assertThat(again.errLines()).singleElement().asString().startsWith("tether: " + itemId + " is no longer pending (already_decided)");
        assertThat(CliRun.run(env, "approvals", "list", "--status", "GRANTED").out()).contains(itemId, "GRANT_ONCE by acme-approver");
        // the approval-service authorizes the call after the grant: wait for it, so no other test sees the log still moving
        agent.awaitEvent(id, 1, e -> e.type().equals("tool_call_authorized"), PATIENCE).orElseThrow();
    }

    @Test
    void versions_setWeightAndDrain_changeWhatVersionsListShows_andDrainWaitsUntilNoSessionIsOpen() throws Exception {
        newSession("drain", ToolMode.READ_ONLY); // at least one session open on v1, the only version so far
        try {
            CliRun weight = CliRun.run(env, "versions", "set-weight", "v2", "10");
            assertThat(weight.exitCode()).as(weight.toString()).isZero();
            assertThat(weight.err()).isEqualTo("v2 is ACTIVE with weight 10: 10% of new sessions\n");
            assertThat(CliRun.run(env, "versions", "list").out()).containsPattern("(?m)^v2 +ACTIVE +10 +10% ")
                    .containsPattern("(?m)^v1 \\(default\\) +ACTIVE +0 +90% ");
            CliRun tooMuch = CliRun.run(env, "versions", "set-weight", "v3", "91");
            assertThat(tooMuch.exitCode()).as(tooMuch.toString()).isEqualTo(1);
            assertThat(tooMuch.err()).contains("would total 101 (v2 10, v3 91)", "[field weight]");

            List<SessionInfo> open = agent.sessions(SessionInfo.Status.OPEN).stream().filter(s -> s.harnessVersion().equals("v1")).toList();
            assertThat(open).isNotEmpty();

            CliRun now = CliRun.run(env, "versions", "drain", "v1");
            assertThat(now.out()).isEqualTo("v1 is DRAINING: " + (open.size() == 1 ? "1 session" : open.size() + " sessions") + " still open\n");
            assertThat(CliRun.run(env, "versions", "list").out()).containsPattern("(?m)^v1 +DRAINING +0 +0% +- +" + open.size() + "$");

            var progress = new StringWriter();
            CompletableFuture<CliRun> drain = CliRun.start(env, progress, "versions", "drain", "v1", "--wait", "--interval", "300ms", "--json");
            // it has counted the open sessions once (a fixed sleep was too short on a loaded machine)
            await().atMost(PATIENCE).until(() -> progress.toString().contains("drain v1: "));
            for (SessionInfo s : open) {
                assertThat(agent.append(s.sessionId(), AppendBatch.forStep("close", NewEvent.sessionClosed("done")))).isInstanceOf(Appended.class);
            }
            CliRun drained = drain.get(2, TimeUnit.MINUTES);
            assertThat(drained.exitCode()).as(drained.toString()).isZero();
            assertThat(JSON.readTree(drained.out())).isEqualTo(JSON.readTree(
                    "{\"version\":\"v1\",\"weight\":0,\"share\":0.0,\"state\":\"DRAINING\",\"openSessions\":0,\"drained\":true}"));
            assertThat(drained.errLines()).first().asString().startsWith("drain v1: " + open.size() + " session");
            assertThat(CliRun.run(env, "versions", "list").out()).containsPattern("(?m)^v1 +DRAINING +0 +0% +- +0$");
        } finally {
            CliRun.run(env, "versions", "set-weight", "v2", "0"); // first: v1 100 next to v2 10 would total more than 100
            CliRun.run(env, "versions", "set-weight", "v1", "100");
        }
    }

    @Test
    void replay_fromTheJar_countsExactlyTheEventsWritten_andRebuildsTheProjectorsCheckpoints() throws Exception {
        JsonNode before = JSON.readTree(jar(env, "replay", "--json").out());

        var written = new ArrayList<String>();
        for (int i = 0; i < 3; i++) {
            String id = newSession("replay", ToolMode.READ_ONLY);
            long lastSeq = append(id, "turn-1", NewEvent.userMessage("one"), NewEvent.userMessage("two"),
                    NewEvent.assistantMessage("three", List.of(), new TokenUsage(10, 5)), NewEvent.stepCompleted(1, "four", true)).lastSeq();
            assertThat(lastSeq).isEqualTo(5);
            agent.checkpoint(id, ReadAt.atLeast(lastSeq)).orElseThrow();
            written.add(id);
        }

        CliRun run = jar(env, "replay", "--json");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode after = JSON.readTree(run.out());
        assertThat(after.get("topic").asText()).isEqualTo(prefix + "session-events");
        assertThat(after.get("events").asLong() - before.get("events").asLong()).isEqualTo(15);
        assertThat(after.get("sessions").asLong() - before.get("sessions").asLong()).isEqualTo(3);
        assertThat(after.get("problems")).isEmpty();
        JsonNode checkpoints = after.get("checkpoints");
        assertThat(checkpoints.get("differ")).isEmpty();
        assertThat(checkpoints.get("missing")).isEmpty();
        assertThat(checkpoints.get("equal").asInt() + checkpoints.get("behind").size() + checkpoints.get("ahead").size())
                .isEqualTo(after.get("sessions").asInt());
        assertThat(checkpoints.get("equal").asInt()).isGreaterThanOrEqualTo(3);
        assertThat(after.get("clean").asBoolean()).isTrue();

        CliRun table = CliRun.run(env, "replay");
        assertThat(table.exitCode()).as(table.toString()).isZero();
        assertThat(table.out()).contains("topic        " + prefix + "session-events (6 partitions)\n", "every log gapless")
                .containsPattern("rate +[\\d,]+ events/s");
    }

    @Test
    void replayInto_fromTheJar_writesOneRebuiltCheckpointPerSession_equalToTheProjectors() throws Exception {
        var written = new ArrayList<String>();
        for (int i = 0; i < 3; i++) {
            String id = newSession("replay-into", ToolMode.READ_ONLY);
            long lastSeq = append(id, "turn-1", NewEvent.userMessage("one"),
                    NewEvent.assistantMessage("two", List.of(), new TokenUsage(10, 5))).lastSeq();
            agent.checkpoint(id, ReadAt.atLeast(lastSeq)).orElseThrow();
            written.add(id);
        }
        String into = prefix + "rebuilt-checkpoints";

        CliRun run = jar(env, "replay", "--into", into, "--json");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode report = JSON.readTree(run.out());
        JsonNode w = report.get("written");
        assertThat(w.get("topic").asText()).isEqualTo(into);
        assertThat(w.get("created").asBoolean()).isTrue();
        assertThat(w.get("skipped").asInt()).isZero();
        assertThat(w.get("checkpoints").asInt()).isEqualTo(report.get("sessions").asInt());
        assertThat(w.get("tombstones").asInt()).isEqualTo(report.get("erasedSessions").asInt());

        try (Admin admin = Admin.create(TetherStack.shared().clientConfig())) {
            var resource = new ConfigResource(ConfigResource.Type.TOPIC, into);
            assertThat(admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource)
                    .get("cleanup.policy").value()).isEqualTo("compact");
        }
        List<ConsumerRecord<String, Checkpoint>> rebuilt = readAll(into);
        Map<String, Checkpoint> stored = new HashMap<>();
        readAll(prefix + Topics.SESSION_CHECKPOINTS).forEach(r -> stored.put(r.key(), r.value()));
        List<ConsumerRecord<String, Checkpoint>> checkpoints = rebuilt.stream().filter(r -> r.value() != null).toList();
        assertThat(checkpoints).as("one checkpoint per session").hasSize(w.get("checkpoints").asInt())
                .extracting(ConsumerRecord::key).doesNotHaveDuplicates().containsAll(written);
        for (var r : checkpoints) {
            if (written.contains(r.key()) || stored.get(r.key()) != null && stored.get(r.key()).getLastSeq() == r.value().getLastSeq()) {
                assertThat(r.value()).as(r.key() + ": the rebuilt checkpoint is the projector's, field for field").isEqualTo(stored.get(r.key()));
            }
        }

        CliRun again = CliRun.run(env, "replay", "--into", into, "--no-compare");
        assertThat(again.exitCode()).as(again.toString()).isZero();
        assertThat(again.out()).containsPattern("(?m)^written +[\\d,]+ checkpoints and [\\d,]+ tombstones? to " + Pattern.quote(into)
                + " \\(compacted, existed\\) in ");
    }

    private static List<ConsumerRecord<String, Checkpoint>> readAll(String topic) {
        var records = new ArrayList<ConsumerRecord<String, Checkpoint>>();
        var config = new HashMap<>(TetherStack.shared().clientConfig());
        config.put("isolation.level", "read_committed");
        try (Serde<Checkpoint> values = AvroSerdes.valueSerde(TetherStack.shared().registryUrl());
             var consumer = new KafkaConsumer<>(config, new StringDeserializer(), values.deserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + PATIENCE.toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
                assertThat(System.nanoTime()).as("read " + topic + " to its end").isLessThan(deadline);
                consumer.poll(Duration.ofMillis(200)).forEach(r -> {
                    if (r.offset() < ends.get(new TopicPartition(r.topic(), r.partition()))) {
                        records.add(r);
                    }
                });
            }
        }
        return records;
    }

    @Test
    void topicsInit_fromTheJar_createsThePrefixedTopics_thenVerifiesThem_andRefusesOneThatCouldLoseEvents() throws Exception {
        String fresh = "cli-init-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        var init = new HashMap<>(env);
        init.put("TETHER_TOPICS_PREFIX", fresh);

        CliRun created = jar(init, "topics", "init", "--partitions", "2");
        assertThat(created.exitCode()).as(created.toString()).isZero();
        for (String topic : List.of(Topics.SESSION_COMMANDS, Topics.SESSION_EVENTS, Topics.SESSION_CHECKPOINTS, Topics.TOOL_REQUESTS,
                Topics.TOOL_OUTCOMES, Topics.SESSION_REPLIES, Topics.BLOB_REFERENCES)) {
            assertThat(created.out()).containsPattern("(?m)^" + fresh + topic + " +2 +(delete|compact) +.* created$");
        }
        assertThat(created.out()).containsPattern("(?m)^" + fresh + "harness-versions +1 +compact +forever +created$")
                .containsPattern("(?m)^" + fresh + "session-events-value +\\d+ +FULL_TRANSITIVE$");
        try (Admin admin = Admin.create(TetherStack.shared().clientConfig())) {
            Set<String> names = admin.listTopics().names().get(30, TimeUnit.SECONDS).stream().filter(n -> n.startsWith(fresh))
                    .collect(Collectors.toSet());
            assertThat(names).hasSize(Topics.all(TopicLayout.local()).size()).hasSize(8);
            TopicDescription events = admin.describeTopics(List.of(fresh + Topics.SESSION_EVENTS)).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get(fresh + Topics.SESSION_EVENTS);
            assertThat(events.partitions()).hasSize(2);

            CliRun verified = CliRun.run(init, "topics", "init", "--json");
            assertThat(JSON.readTree(verified.out()).get("created")).isEmpty();
            assertThat(JSON.readTree(verified.out()).get("verified")).hasSize(8);

            // a session-events topic that deletes by time would lose events: refused, in one line
            String lossy = "cli-lossy-" + UUID.randomUUID().toString().substring(0, 8) + ".";
            admin.createTopics(List.of(new NewTopic(lossy + Topics.SESSION_EVENTS, 2, (short) 1).configs(Map.of("cleanup.policy", "delete"))))
                    .all().get(30, TimeUnit.SECONDS);
            init.put("TETHER_TOPICS_PREFIX", lossy);
            CliRun refused = CliRun.run(init, "topics", "init");
            assertThat(refused.exitCode()).isEqualTo(1);
            assertThat(refused.errLines()).last().asString().startsWith("tether: Kafka topics are misconfigured; refusing to run on them: "
                    + "topic '" + lossy + "session-events' has cleanup.policy=delete but must have cleanup.policy=compact");
        }
    }

    /**
     * A record no service can read stops the session-service at every start (the services never skip one by themselves);
     * {@code topics skip-record} moves the stopped service past it, and refuses while an instance runs, at an offset the
     * group does not stand at, and for a record that reads. The service then starts, and takes appends again.
     */
    @Test
    void skipRecord_movesAStoppedServicePastTheRecordItCannotRead_andNothingElse() throws Exception {
        String poisoned = "cli-poison-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        String group = poisoned + "tether-session-service";
        String commands = poisoned + Topics.SESSION_COMMANDS;
        var skipEnv = new HashMap<>(env);
        skipEnv.put("TETHER_TOPICS_PREFIX", poisoned);
        var serviceEnv = ServiceProcess.env("TETHER_TOPICS_PREFIX", poisoned, "TETHER_SESSIONS_BLOBS_DIR", workDir.resolve("poison-blobs").toString(),
                "TETHER_WORKSPACE_ROOT", Files.createDirectories(workDir.resolve("poison-workspaces")).toString());
        try (var service = new ServiceProcess(Path.of("../session-service").toAbsolutePath(), workDir.resolve("poisoned-session-service"),
                serviceEnv, List.of());
             var client = TetherClient.create(TetherOptions.of(URI.create(service.baseUrl()), URI.create(projector.baseUrl()),
                     URI.create(approvals.baseUrl())).withToken("dev-acme-agent").withTimeout(Duration.ofSeconds(60))
                     .withRetry(RetryPolicy.of(12, Duration.ofMillis(250), Duration.ofSeconds(5))));
             Admin admin = Admin.create(TetherStack.shared().clientConfig())) {
            service.start();
            String id = "poisoned-" + UUID.randomUUID().toString().substring(0, 8);
            client.createSession(NewSession.of("Survive a bad record", "claude-sonnet-4", ToolMode.READ_ONLY).withSessionId(id)).createdOrThrow();
            // where the session-service's group stands on the partition of the session's commands
            Map.Entry<TopicPartition, Long> at = await().atMost(PATIENCE).until(() -> committed(admin, group).entrySet().stream()
                    .filter(e -> e.getKey().topic().equals(commands) && e.getValue() > 0).findFirst(), java.util.Optional::isPresent).get();
            TopicPartition tp = at.getKey();
            String[] skip = {"topics", "skip-record", "--service", "session-service", "--topic", Topics.SESSION_COMMANDS, "--partition",
                    Integer.toString(tp.partition()), "--offset", ""};

            skip[9] = Long.toString(at.getValue() - 1);
            CliRun running = CliRun.run(skipEnv, skip);
            assertThat(running.exitCode()).as(running.toString()).isEqualTo(1);
            assertThat(running.errLines()).singleElement().asString().contains("has 1 member(s): stop every instance of the session-service first");

            long poison;
            var producerConfig = new HashMap<>(TetherStack.shared().clientConfig());
            try (var producer = new org.apache.kafka.clients.producer.KafkaProducer<>(producerConfig,
                    new org.apache.kafka.common.serialization.StringSerializer(), new org.apache.kafka.common.serialization.ByteArraySerializer())) {
                poison = producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(commands, tp.partition(), id,
                        "not Avro at all".getBytes(StandardCharsets.UTF_8))).get(30, TimeUnit.SECONDS).offset();
            }
            await().atMost(PATIENCE).until(() -> liveness(service) != 200);
            service.stop();
            awaitNoMembers(admin, group);
            assertThat(Files.readString(service.log())).as("the service's log names the record, as cli/README.md says")
                    .contains("topic: " + commands + ", partition: " + tp.partition() + ", offset: " + poison);
            assertThat(committed(admin, group)).containsEntry(tp, poison);

            skip[9] = Long.toString(poison - 1);
            CliRun elsewhere = CliRun.run(skipEnv, skip);
            assertThat(elsewhere.exitCode()).as(elsewhere.toString()).isEqualTo(1);
            assertThat(elsewhere.errLines()).singleElement().asString().contains("stands at offset " + poison + " of " + tp + ", past " + (poison - 1));
            admin.alterConsumerGroupOffsets(group, Map.of(tp, new org.apache.kafka.clients.consumer.OffsetAndMetadata(poison - 1)))
                    .all().get(30, TimeUnit.SECONDS);
            CliRun readable = CliRun.run(skipEnv, skip);
            assertThat(readable.exitCode()).as(readable.toString()).isEqualTo(1);
            assertThat(readable.errLines()).singleElement().asString().contains("reads as a dev.tether.avro.")
                    .contains("refusing to skip a record that can be read");
            assertThat(committed(admin, group)).as("nothing moved").containsEntry(tp, poison - 1);
            admin.alterConsumerGroupOffsets(group, Map.of(tp, new org.apache.kafka.clients.consumer.OffsetAndMetadata(poison)))
                    .all().get(30, TimeUnit.SECONDS);

            skip[9] = Long.toString(poison);
            CliRun skipped = CliRun.run(skipEnv, skip);
            assertThat(skipped.exitCode()).as(skipped.toString()).isZero();
            assertThat(skipped.out()).startsWith("skipped offset " + poison + " of " + commands + "-" + tp.partition() + " for " + group
                    + ": the group now starts at " + (poison + 1)).contains("key '" + id + "', 15 bytes").contains("unreadable: ");
            assertThat(committed(admin, group)).containsEntry(tp, poison + 1);

            service.start();
            assertThat(liveness(service)).isEqualTo(200);
            assertThat(client.append(id, AppendBatch.forStep("after", NewEvent.userMessage("still here"))).appendedOrThrow().lastSeq())
                    .isEqualTo(2);

            // an unreadable record in one fetch with a readable one before it: the group stands before both, so skip-record
            // cannot help; TETHER_SKIP_RECORDS naming it passes over that one record, and the one before it is processed
            service.stop();
            long standing = committed(admin, group).get(tp);
            long second;
            try (var producer = new org.apache.kafka.clients.producer.KafkaProducer<>(producerConfig,
                    new org.apache.kafka.common.serialization.StringSerializer(), new org.apache.kafka.common.serialization.ByteArraySerializer())) {
                byte[] resent = valueAt(tp, standing - 1); // the append's command again: a re-send, answered as one
                producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(commands, tp.partition(), id, resent));
                second = producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(commands, tp.partition(), id,
                        "not Avro either".getBytes(StandardCharsets.UTF_8))).get(30, TimeUnit.SECONDS).offset();
            }
            service.launch();
            await().atMost(PATIENCE).until(() -> Files.readString(service.log()).contains("offset: " + second));
            await().atMost(PATIENCE).until(() -> liveness(service) != 200);
            service.stop();
            awaitNoMembers(admin, group);
            assertThat(committed(admin, group)).as("the group stands before both").containsEntry(tp, standing);
            skip[9] = Long.toString(second);
            CliRun before = CliRun.run(skipEnv, skip);
            assertThat(before.exitCode()).as(before.toString()).isEqualTo(1);
            assertThat(before.errLines()).singleElement().asString().contains("stands at offset " + standing + " of " + tp + ", before " + second);

            var namingIt = new HashMap<>(serviceEnv);
            namingIt.put("TETHER_SKIP_RECORDS", commands + ":" + tp.partition() + ":" + second);
            try (var told = new ServiceProcess(Path.of("../session-service").toAbsolutePath(), workDir.resolve("poisoned-session-service"),
                    namingIt, List.of()).start()) {
                assertThat(liveness(told)).isEqualTo(200);
                await().atMost(PATIENCE).until(() -> committed(admin, group).get(tp) > second);
                assertThat(Files.readString(told.log())).contains("passed over the record at " + commands + ":" + tp.partition() + ":" + second);
                try (var toTold = TetherClient.create(TetherOptions.of(URI.create(told.baseUrl()), URI.create(projector.baseUrl()),
                        URI.create(approvals.baseUrl())).withToken("dev-acme-agent").withTimeout(Duration.ofSeconds(60))
                        .withRetry(RetryPolicy.of(12, Duration.ofMillis(250), Duration.ofSeconds(5))))) {
                    assertThat(toTold.append(id, AppendBatch.forStep("after the second", NewEvent.userMessage("here too"))).appendedOrThrow()
                            .lastSeq()).isEqualTo(3);
                }
            }
        }
    }

    /** The value of the record at {@code offset} of {@code tp}, as written. */
    private static byte[] valueAt(TopicPartition tp, long offset) {
        var config = new HashMap<>(TetherStack.shared().clientConfig());
        try (var consumer = new KafkaConsumer<>(config, new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
                new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seek(tp, offset);
            long deadline = System.nanoTime() + PATIENCE.toNanos();
            while (System.nanoTime() < deadline) {
                for (var record : consumer.poll(Duration.ofMillis(200))) {
                    if (record.offset() == offset) {
                        return record.value();
                    }
                }
            }
            throw new AssertionError("no record at " + offset + " of " + tp);
        }
    }

    /**
     * Waits until the stopped service's member has left the group, as skip-record requires (it refuses while one is in
     * it). A service stopped cleanly leaves at once; one whose close ran out of time (the process killed) stays in the
     * group until its session timeout.
     */
    private static void awaitNoMembers(Admin admin, String group) {
        await().atMost(PATIENCE).until(() -> admin.describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS).get(group)
                .members().isEmpty());
    }

    /** The consumer group's committed offsets. */
    private static Map<TopicPartition, Long> committed(Admin admin, String group) throws Exception {
        var offsets = new HashMap<TopicPartition, Long>();
        admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS)
                .forEach((tp, o) -> offsets.put(tp, o.offset()));
        return offsets;
    }

    private static int liveness(ServiceProcess service) throws Exception {
        var request = java.net.http.HttpRequest.newBuilder(URI.create(service.baseUrl() + "/q/health/live")).timeout(Duration.ofSeconds(10)).build();
        return java.net.http.HttpClient.newHttpClient().send(request, java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    @Test
    void failures_areOneLineOnStderr_withANonZeroExit() throws Exception {
        CliRun unknown = CliRun.run(env, "sessions", "show", "no-such-session");
        assertThat(unknown.exitCode()).isEqualTo(1);
        assertThat(unknown.errLines()).containsExactly(
                "tether: session no-such-session not found (it does not exist for this token's tenant, or was erased)");

        CliRun wrongRole = CliRun.run(env, "versions", "list", "--token", "dev-acme-agent");
        assertThat(wrongRole.exitCode()).isEqualTo(1);
        assertThat(wrongRole.errLines()).containsExactly("tether: listing harness versions failed: 403 forbidden: the caller's role does not "
                + "allow this; this needs an operator or admin token (e.g. dev-operator)");

        CliRun refusedToken = CliRun.run(env, "sessions", "list", "--token", "not-a-key");
        assertThat(refusedToken.exitCode()).isEqualTo(1);
        assertThat(refusedToken.errLines()).singleElement().asString().startsWith("tether: listing sessions: the credentials were refused");

        CliRun down = CliRun.run(env, "sessions", "list", "--session-url", "http://127.0.0.1:" + closedPort());
        assertThat(down.exitCode()).isEqualTo(1);
        assertThat(down.errLines()).singleElement().asString().contains("connection refused; is Tether running (bin/run)?");

        CliRun noTopic = jar(env, "replay", "--topics-prefix", "no-such-prefix.");
        assertThat(noTopic.exitCode()).isEqualTo(1);
        assertThat(noTopic.err()).isEqualTo(
                "tether: topic no-such-prefix.session-events does not exist (check --topics-prefix; 'tether topics init' creates the topics)\n");
    }

    // ---------------------------------------------------------------------------------------------

    private static String newSession(String name, ToolMode mode) {
        String id = name + "-" + UUID.randomUUID().toString().substring(0, 8);
        agent.createSession(NewSession.of("Rename Foo to Bar in src/", "claude-sonnet-4", mode).withSessionId(id)
                .withSystemPrompt("You are a careful engineer.")).createdOrThrow();
        return id;
    }

    private static Appended append(String id, String step, NewEvent... events) {
        return agent.append(id, AppendBatch.forStep(step, events)).appendedOrThrow();
    }

    /** {@code java -jar target/tether.jar args…} with {@code environment}: the shaded jar, as bin/tether runs it. */
    private static CliRun jar(Map<String, String> environment, String... args) throws Exception {
        var command = new ArrayList<String>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                Path.of("target/tether.jar").toAbsolutePath().toString()));
        command.addAll(List.of(args));
        var builder = new ProcessBuilder(command);
        builder.environment().putAll(environment);
        Path out = Files.createTempFile(workDir, "out", ".txt");
        Path err = Files.createTempFile(workDir, "err", ".txt");
        Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!process.waitFor(3, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError("tether " + String.join(" ", args) + " did not end within 3 minutes");
        }
        return new CliRun(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }

    private static int closedPort() throws IOException {
        try (var socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
