package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.testing.ServiceProcess;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A rainbow deploy against the real sequencer (broker and registry real too): harness v2, on a model of its own, gets
 * 10 % of new sessions next to the default v1, which takes the other 90 %; two worker groups, one per version, work
 * the sessions off one queue while v1 is drained and v2's weight and model change. Every session finishes on the
 * version and the model it started on (a v1 worker cannot claim a v2 session), new sessions go to v2 only once v1
 * drains, and v1's count of open sessions falls to zero.
 */
class RainbowDeployIT {

    private static final int FIRST_WAVE = 100;
    private static final int SECOND_WAVE = 10;

    private static Path workDir;
    private static ServiceProcess sessions;
    private static TetherClient agent;
    private static TetherClient operator;

    @BeforeAll
    static void start() throws IOException {
        String prefix = "client-rainbow-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        workDir = Files.createTempDirectory("client-rainbow-it-");
        sessions = new ServiceProcess(Path.of("../session-service").toAbsolutePath(), workDir.resolve("session-service"),
                ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix), List.of()).start();
        agent = TetherClient.create(options("dev-acme-agent"));
        operator = TetherClient.create(options("dev-operator"));
    }

    @AfterAll
    static void stop() throws IOException {
        if (agent != null) {
            agent.close();
            operator.close();
        }
        if (sessions != null) {
            sessions.stop();
        }
        try (var paths = Files.walk(workDir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Test
    void everySessionFinishesOnItsVersion_andTheDrainCountReachesZero() throws Exception {
        operator.putHarnessVersion(HarnessVersionUpdate.active("v1", 0).withModelId("model-v1")).versionsOrThrow();
        operator.putHarnessVersion(HarnessVersionUpdate.active("v2", 10).withModelId("model-v2")).versionsOrThrow();
        await().atMost(Duration.ofMinutes(1)).until(() -> version("v2").map(v -> v.weight() == 10).orElse(false));
        assertThat(version("v2").orElseThrow().share()).as("a weight is a percent").isEqualTo(10.0);
        assertThat(version("v1").orElseThrow().share()).as("the default version takes the rest").isEqualTo(90.0);
        assertThat(operator.setWeight("v3", 91)).as("10 + 91 is more than 100 percent")
                .isInstanceOfSatisfying(Rejected.class, r -> assertThat(r.field()).contains("weight"));

        var pinned = new ConcurrentHashMap<String, String>();
        var models = new ConcurrentHashMap<String, String>();
        for (int i = 0; i < FIRST_WAVE; i++) {
            create("first-" + i, pinned, models);
        }
        long onV2 = pinned.values().stream().filter("v2"::equals).count();
        assertThat(onV2).as("about 10 of every 100 new sessions go to v2").isBetween(2L, 22L);
        pinned.forEach((id, v) -> assertThat(models.get(id)).as(id).isEqualTo(v.equals("v2") ? "model-v2" : "model-v1"));
        assertThat(agent.createSession(NewSession.of("rainbow on another model", "model-x", ToolMode.READ_ONLY)
                .withHarnessVersion("v2"))).as("a v2 session on another model than v2's")
                .isInstanceOfSatisfying(Rejected.class, r -> {
                    assertThat(r.status()).isEqualTo(409);
                    assertThat(r.code()).isEqualTo("model_pinned");
                    assertThat(r.field()).contains("modelId");
                });
        await().atMost(Duration.ofMinutes(1))
                .untilAsserted(() -> assertThat(version("v1").orElseThrow().openSessions()).isEqualTo(FIRST_WAVE - onV2));

        String aV2Session = pinned.entrySet().stream().filter(e -> e.getValue().equals("v2")).findFirst().orElseThrow().getKey();
        assertThat(agent.claim(aV2Session, ClaimRequest.of("v1-intruder", "v1"))).isInstanceOf(VersionPinned.class);

        var queue = new LinkedBlockingQueue<>(pinned.keySet());
        var finishedOn = new ConcurrentHashMap<String, String>();
        var workedOnModel = new ConcurrentHashMap<String, String>();
        var refusals = new AtomicInteger();
        ExecutorService workers = Executors.newFixedThreadPool(4);
        for (String version : List.of("v1", "v2")) {
            for (int w = 0; w < 2; w++) {
                String workerId = version + "-worker-" + w;
                workers.submit(() -> work(workerId, version, queue, finishedOn, workedOnModel, refusals));
            }
        }

        // mid-flight: drain v1, raise v2 and move it to another model; what is new goes to v2 on the new model, what runs
        // on v1 carries on there, and what runs on v2 keeps the model it started on
        operator.drain("v1").versionsOrThrow();
        operator.setWeight("v2", 30).versionsOrThrow();
        operator.putHarnessVersion(HarnessVersionUpdate.active("v2", 30).withModelId("model-v2b")).versionsOrThrow();
        await().atMost(Duration.ofMinutes(1)).until(() -> version("v1").map(v -> v.state().equals("DRAINING")).orElse(false)
                && version("v2").flatMap(HarnessVersion::modelId).equals(java.util.Optional.of("model-v2b")));
        assertThat(version("v1").orElseThrow().modelId()).as("drain keeps the model").contains("model-v1");
        assertThat(version("v2").orElseThrow().share()).as("without an ACTIVE default, v2 takes everything").isEqualTo(100.0);
        var secondWave = new ConcurrentHashMap<String, String>();
        var secondModels = new ConcurrentHashMap<String, String>();
        for (int i = 0; i < SECOND_WAVE; i++) {
            create("second-" + i, secondWave, secondModels);
        }
        assertThat(secondWave.values()).as("a draining version takes no new session").containsOnly("v2");
        assertThat(secondModels.values()).as("new v2 sessions take v2's new model").containsOnly("model-v2b");
        models.putAll(secondModels);
        pinned.putAll(secondWave);
        queue.addAll(secondWave.keySet());

        var drainCounts = Collections.synchronizedList(new ArrayList<Long>());
        await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(200)).until(() -> {
            long open = version("v1").orElseThrow().openSessions();
            drainCounts.add(open);
            return open == 0 && finishedOn.size() == pinned.size();
        });
        workers.shutdownNow();
        assertThat(workers.awaitTermination(30, TimeUnit.SECONDS)).isTrue();

        assertThat(drainCounts).as("v1's open sessions while it drains").isSortedAccordingTo(Comparator.reverseOrder()).endsWith(0L);
        assertThat(drainCounts.get(0)).isGreaterThan(0L);
        assertThat(finishedOn).isEqualTo(pinned);
        assertThat(workedOnModel).as("each worker saw the model its session started on").isEqualTo(models);
        assertThat(refusals.get()).as("workers of the other version were refused (version_pinned) and left the session").isPositive();
        for (var session : pinned.entrySet()) {
            List<SessionEvent> log = agent.allEvents(session.getKey()).orElseThrow();
            assertThat(log).as(session.getKey()).extracting(SessionEvent::harnessVersion).containsOnly(session.getValue());
            assertThat(log.get(0).text("harnessVersion")).as("pinned at the start").contains(session.getValue());
            assertThat(log.get(0).text("modelId")).as("the model pinned at the start").contains(models.get(session.getKey()));
            SessionInfo info = agent.session(session.getKey()).orElseThrow();
            assertThat(info.harnessVersion()).isEqualTo(session.getValue());
            assertThat(info.modelId()).as("closed on the model it started on").isEqualTo(models.get(session.getKey()));
            assertThat(log).filteredOn(e -> e.type().equals("session_claimed"))
                    .allSatisfy(e -> assertThat(e.text("workerId").orElseThrow()).startsWith(session.getValue() + "-worker-"));
            assertThat(log.get(log.size() - 1).type()).isEqualTo("session_closed");
        }
        System.out.printf("rainbow: %d sessions on v1, %d on v2 (%d on model-v2, %d on model-v2b); v1 open sessions while draining: %s%n",
                pinned.values().stream().filter("v1"::equals).count(), pinned.values().stream().filter("v2"::equals).count(),
                models.values().stream().filter("model-v2"::equals).count(), models.values().stream().filter("model-v2b"::equals).count(),
                drainCounts.stream().distinct().toList());
    }

    /** A worker of {@code version}: takes sessions off the queue; one of another version goes back for the others. */
    private static void work(String workerId, String version, LinkedBlockingQueue<String> queue, Map<String, String> finishedOn,
                             Map<String, String> workedOnModel, AtomicInteger refusals) {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                String sessionId = queue.poll(100, TimeUnit.MILLISECONDS);
                if (sessionId == null) {
                    continue;
                }
                ClaimResult claim = agent.claim(sessionId, ClaimRequest.of(workerId, version));
                if (claim instanceof VersionPinned) {
                    refusals.incrementAndGet();
                    queue.put(sessionId);
                    continue;
                }
                SessionWriter writer = agent.writer(claim.claimedOrThrow());
                workedOnModel.put(sessionId, agent.session(sessionId).orElseThrow().modelId());
                writer.append("ask", NewEvent.userMessage("do the thing")).appendedOrThrow();
                writer.append("answer", NewEvent.assistantMessage("done", List.of(), new TokenUsage(10, 2))).appendedOrThrow();
                writer.append("close", NewEvent.sessionClosed("done on " + version)).appendedOrThrow();
                finishedOn.put(sessionId, version);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A session on the model of the version it is assigned (the request names none). */
    private static void create(String name, Map<String, String> pinned, Map<String, String> models) {
        Created created = agent.createSession(NewSession.of("rainbow " + name, ToolMode.READ_ONLY).withSessionId("rb-" + name))
                .createdOrThrow();
        pinned.put(created.sessionId(), created.harnessVersion());
        models.put(created.sessionId(), created.modelId());
    }

    private static java.util.Optional<HarnessVersion> version(String name) {
        return operator.harnessVersions().stream().filter(v -> v.version().equals(name)).findFirst();
    }

    private static TetherOptions options(String token) {
        URI none = URI.create("http://127.0.0.1:9"); // neither projector nor approvals in this test
        return TetherOptions.of(URI.create(sessions.baseUrl()), none, none).withToken(token)
                .withRetry(RetryPolicy.of(12, Duration.ofMillis(250), Duration.ofSeconds(5)));
    }
}
