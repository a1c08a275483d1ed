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
 * A rainbow deploy against the real sequencer (broker and registry real too): harness v2 gets 10 % of new sessions
 * next to the default v1; two worker groups, one per version, work the sessions off one queue while v1 is drained.
 * Every session finishes on the version it started on (a v1 worker cannot claim a v2 session), new sessions go to v2
 * only once v1 drains, and v1's count of open sessions falls to zero.
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
        operator.setWeight("v2", 10);
        await().atMost(Duration.ofMinutes(1)).until(() -> version("v2").map(v -> v.weight() == 10).orElse(false));

        var pinned = new ConcurrentHashMap<String, String>();
        for (int i = 0; i < FIRST_WAVE; i++) {
            create("first-" + i, pinned);
        }
        long onV2 = pinned.values().stream().filter("v2"::equals).count();
        assertThat(onV2).as("about 10 of every 110 new sessions go to v2").isBetween(2L, 25L);
        await().atMost(Duration.ofMinutes(1))
                .untilAsserted(() -> assertThat(version("v1").orElseThrow().openSessions()).isEqualTo(FIRST_WAVE - onV2));

        String aV2Session = pinned.entrySet().stream().filter(e -> e.getValue().equals("v2")).findFirst().orElseThrow().getKey();
        assertThat(agent.claim(aV2Session, ClaimRequest.of("v1-intruder", "v1"))).isInstanceOf(VersionPinned.class);

        var queue = new LinkedBlockingQueue<>(pinned.keySet());
        var finishedOn = new ConcurrentHashMap<String, String>();
        var refusals = new AtomicInteger();
        ExecutorService workers = Executors.newFixedThreadPool(4);
        for (String version : List.of("v1", "v2")) {
            for (int w = 0; w < 2; w++) {
                String workerId = version + "-worker-" + w;
                workers.submit(() -> work(workerId, version, queue, finishedOn, refusals));
            }
        }

        // mid-flight: drain v1; what is new goes to v2, what runs on v1 carries on there
        operator.drain("v1");
        await().atMost(Duration.ofMinutes(1)).until(() -> version("v1").map(v -> v.state().equals("DRAINING")).orElse(false));
        var secondWave = new ConcurrentHashMap<String, String>();
        for (int i = 0; i < SECOND_WAVE; i++) {
            create("second-" + i, secondWave);
        }
        assertThat(secondWave.values()).as("a draining version takes no new session").containsOnly("v2");
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
        assertThat(refusals.get()).as("workers of the other version were refused (version_pinned) and left the session").isPositive();
        for (var session : pinned.entrySet()) {
            List<SessionEvent> log = agent.allEvents(session.getKey()).orElseThrow();
            assertThat(log).as(session.getKey()).extracting(SessionEvent::harnessVersion).containsOnly(session.getValue());
            assertThat(log.get(0).text("harnessVersion")).as("pinned at the start").contains(session.getValue());
            assertThat(agent.session(session.getKey()).orElseThrow().harnessVersion()).isEqualTo(session.getValue());
            assertThat(log).filteredOn(e -> e.type().equals("session_claimed"))
                    .allSatisfy(e -> assertThat(e.text("workerId").orElseThrow()).startsWith(session.getValue() + "-worker-"));
            assertThat(log.get(log.size() - 1).type()).isEqualTo("session_closed");
        }
        System.out.printf("rainbow: %d sessions on v1, %d on v2; v1 open sessions while draining: %s%n",
                pinned.values().stream().filter("v1"::equals).count(), pinned.values().stream().filter("v2"::equals).count(),
                drainCounts.stream().distinct().toList());
    }

    /** A worker of {@code version}: takes sessions off the queue; one of another version goes back for the others. */
    private static void work(String workerId, String version, LinkedBlockingQueue<String> queue, Map<String, String> finishedOn,
                             AtomicInteger refusals) {
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
                writer.append("ask", NewEvent.userMessage("do the thing")).appendedOrThrow();
                writer.append("answer", NewEvent.assistantMessage("done", List.of(), new TokenUsage(10, 2))).appendedOrThrow();
                writer.append("close", NewEvent.sessionClosed("done on " + version)).appendedOrThrow();
                finishedOn.put(sessionId, version);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void create(String name, Map<String, String> pinned) {
        Created created = agent.createSession(NewSession.of("rainbow " + name, "model-x", ToolMode.READ_ONLY)
                .withSessionId("rb-" + name)).createdOrThrow();
        pinned.put(created.sessionId(), created.harnessVersion());
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
