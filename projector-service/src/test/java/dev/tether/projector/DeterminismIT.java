package dev.tether.projector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.core.event.ApprovalGranted;
import dev.tether.core.event.ApprovalRequested;
import dev.tether.core.event.ApprovalScope;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.ContextCompacted;
import dev.tether.core.event.PlanItem;
import dev.tether.core.event.PlanItemStatus;
import dev.tether.core.event.PlanUpdated;
import dev.tether.core.event.SessionClaimed;
import dev.tether.core.event.StepCompleted;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.TurnInterrupted;
import dev.tether.core.event.UserMessage;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import dev.tether.testing.TopicReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Projections are a function of the log: rebuilding every checkpoint from {@code session-events}
 * with a fresh application id gives, for 100 sessions, checkpoints byte-identical to the live ones.
 */
class DeterminismIT {

    private static final int SESSIONS = 100;

    @Test
    void rebuildingFromTheLog_withAFreshApplicationId_givesByteIdenticalCheckpoints() throws Exception {
        String run = "det-" + UUID.randomUUID().toString().substring(0, 8);
        TopicLayout live = TopicLayout.local().withPrefix(run + ".");
        TopicLayout rebuilt = TopicLayout.local().withPrefix(run + ".rebuild.");

        var sessions = new ArrayList<String>();
        try (var projection = new ProjectorRun(run + "-live", live, live); var writer = new EventWriter(live, "acme")) {
            // live: the projection folds while the sessions are written, interleaved
            var random = new Random(42);
            var writing = new ArrayList<EventWriter.Session>();
            for (int s = 0; s < SESSIONS; s++) {
                sessions.add(run + "-s" + s);
                writing.add(writer.session(run + "-s" + s).add(ProjectionApiIT.started()));
            }
            for (int round = 0; round < 6; round++) {
                for (EventWriter.Session session : writing) {
                    script(session, round, random);
                }
            }
            awaitCheckpoints(live, sessions, writing);
        }

        try (var rebuild = new ProjectorRun(run + "-rebuild-" + UUID.randomUUID(), live, rebuilt)) {
            Map<String, byte[]> liveCheckpoints = TopicReader.latestByKey(live.name(Topics.SESSION_CHECKPOINTS));
            await().atMost(Duration.ofMinutes(3)).untilAsserted(() -> {
                Map<String, byte[]> rebuiltCheckpoints = TopicReader.latestByKey(rebuilt.name(Topics.SESSION_CHECKPOINTS));
                assertThat(rebuiltCheckpoints.keySet()).containsExactlyInAnyOrderElementsOf(sessions);
                for (String s : sessions) {
                    assertThat(Arrays.equals(rebuiltCheckpoints.get(s), liveCheckpoints.get(s)))
                            .as("checkpoint of %s is byte-identical", s).isTrue();
                }
            });
            assertThat(liveCheckpoints).hasSize(SESSIONS);
        }
    }

    /** A varied step of a session: messages, tool calls with and without approval, results, interruptions, compactions. */
    private static void script(EventWriter.Session s, int round, Random random) {
        String call = "c" + round;
        long next = s.lastSeq() + 1;
        switch (random.nextInt(4)) {
            case 0 -> s.add(new UserMessage("step " + round, null),
                    new AssistantMessage("on it", null, List.of(new ToolCall(call, "read_file", "{\"n\":" + round + "}")), new TokenUsage(100, 20)),
                    new ToolCallAuthorized(call, AuthorizationBasis.POLICY),
                    new ToolResult(call, s.sessionId + "/" + (next + 1) + "/" + call, ToolStatus.OK, "content " + round, null),
                    new StepCompleted(round + 1, "did " + round, random.nextBoolean(), null));
            case 1 -> s.add(new AssistantMessage("gated", null, List.of(new ToolCall(call, "edit_file", "{}")), new TokenUsage(50, 10)),
                    new ApprovalRequested(call, "edit_file", "diff " + round, null),
                    new ApprovalGranted(call, random.nextBoolean() ? ApprovalScope.ONCE : ApprovalScope.SESSION, null, null, "bob", "ok"),
                    new ToolCallAuthorized(call, AuthorizationBasis.approval(next + 2)),
                    new ToolResult(call, "k", random.nextBoolean() ? ToolStatus.OK : ToolStatus.UNKNOWN, "edited", null));
            case 2 -> s.add(new AssistantMessage("thinking", null, List.of(), new TokenUsage(10, 10)),
                    new TurnInterrupted("half a thought", "user"), new SessionClaimed("w-" + round, round + 1, "v1"),
                    new PlanUpdated(List.of(new PlanItem("a", PlanItemStatus.DONE), new PlanItem("b", PlanItemStatus.IN_PROGRESS))));
            default -> s.add(new UserMessage("compact please", null),
                    new ContextCompacted(s.lastSeq(), "so far so good " + round, null, List.of(1L, s.lastSeq())));
        }
    }

    private static void awaitCheckpoints(TopicLayout layout, List<String> sessions, List<EventWriter.Session> writing) {
        await().atMost(Duration.ofMinutes(3)).untilAsserted(() -> {
            Map<String, byte[]> checkpoints = TopicReader.latestByKey(layout.name(Topics.SESSION_CHECKPOINTS));
            assertThat(checkpoints).hasSize(sessions.size());
            for (EventWriter.Session s : writing) {
                assertThat(lastSeqOf(checkpoints.get(s.sessionId))).as(s.sessionId).isEqualTo(s.lastSeq());
            }
        });
    }

    /** The lastSeq of a checkpoint in the Confluent wire format: after the 5-byte header, sessionId, tenantId, schemaVersion. */
    static long lastSeqOf(byte[] value) throws Exception {
        var decoder = org.apache.avro.io.DecoderFactory.get().binaryDecoder(value, 5, value.length - 5, null);
        decoder.readString();
        decoder.readString();
        decoder.readInt();
        return decoder.readLong();
    }
}
