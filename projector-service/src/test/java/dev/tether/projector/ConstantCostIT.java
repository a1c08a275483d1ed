package dev.tether.projector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.StepCompleted;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.UserMessage;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import dev.tether.projector.kafka.ProjectorStores;
import dev.tether.testing.TetherStack;
import dev.tether.testing.TopicReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * A long session does not make each event dearer: after 20,000 events the checkpoint is within
 * 10 % of its size at event 1,000, and the bytes the projector writes to its stores per event
 * (measured on their changelog topics) are the same late in the session as early on. The checkpoint store writes back:
 * its changelog and {@code session-checkpoints} get the session's checkpoint once per commit, not once per event, and
 * each write is no larger late than early at the same point of a turn. The call store writes back too: a call's changes
 * within one commit are one write, and its writes are no larger late than early.
 */
class ConstantCostIT {

    private static final int EVENTS = 20_000;
    private static final int CYCLE = 5;
    /** Where the session is stopped until the projector has caught up: a cycle's worth of seqs early, and late. */
    private static final long EARLY = 1_000;
    private static final long LATE = EVENTS - 1_000;
    private static final long[] STOPS = {EARLY, EARLY + 1, EARLY + 2, EARLY + 3, EARLY + 4, LATE, LATE + 1, LATE + 2, LATE + 3, LATE + 4};

    @Test
    void checkpointSizeAndStoreWritesPerEvent_doNotGrowWithTheSessionsLength() throws Exception {
        String run = "cost-" + UUID.randomUUID().toString().substring(0, 8);
        TopicLayout layout = TopicLayout.local().withPrefix(run + ".");
        String applicationId = run + "-projector";
        String sessionId = run + "-long";

        try (var projection = new ProjectorRun(applicationId, layout, layout); var writer = new EventWriter(layout, "acme")) {
            EventWriter.Session s = writer.session(sessionId).add(ProjectionApiIT.started());
            var script = new ArrayList<EventPayload>();
            for (int i = 0; 1 + script.size() < EVENTS; i++) {
                script.addAll(cycle(sessionId, i, 2L + script.size()));
            }
            // the projector is caught up at each of the points compared below, so a checkpoint is written at exactly
            // those seqs whatever the commits' timing: five in a row early and late, one at each point of a cycle
            for (long seq : STOPS) {
                writeThrough(s, script, seq, layout);
            }
            writeThrough(s, script, EVENTS, layout);
        }
        // the serialized checkpoint, as written to session-checkpoints at event 1,000 and at event 20,000 (the same point of a
        // cycle); it is larger late only by its numbers' digits, in the seqs and call ids of the cursor's ten calls (707 -> 773 bytes)
        List<ConsumerRecord<byte[], byte[]>> checkpoints = TopicReader.readAll(layout.name(Topics.SESSION_CHECKPOINTS));
        int at1000 = sizeFrom(checkpoints, 1_000);
        int at20000 = sizeFrom(checkpoints, EVENTS);
        assertThat((double) at20000).as("checkpoint bytes at 20,000 events vs at 1,000 (%d)", at1000).isLessThanOrEqualTo(at1000 * 1.10);

        // the bytes the projector writes to its stores, per event, early and late in the session
        String checkpointChangelog = applicationId + "-" + ProjectorStores.CHECKPOINTS + "-changelog";
        String callsChangelog = applicationId + "-" + ProjectorStores.CALLS + "-changelog";
        try (Admin admin = Admin.create(TetherStack.shared().clientConfig())) {
            Set<String> topics = admin.listTopics().names().get();
            assertThat(topics).contains(checkpointChangelog, callsChangelog);
            assertThat(topics).as("messages are restored from session-events: no changelog of their own")
                    .doesNotContain(applicationId + "-" + ProjectorStores.MESSAGES + "-changelog");
        }
        List<ConsumerRecord<byte[], byte[]>> checkpointWrites = TopicReader.readAll(checkpointChangelog);
        List<ConsumerRecord<byte[], byte[]>> callWrites = TopicReader.readAll(callsChangelog);
        // the cache sends the session's latest checkpoint at each commit (every 100 ms), to the changelog and to
        // session-checkpoints alike: far fewer writes than events, each at a later seq than the one before
        List<Long> written = lastSeqs(checkpointWrites);
        assertThat(written).as("checkpoint writes, by their lastSeq").isSorted().doesNotHaveDuplicates().endsWith((long) EVENTS);
        assertThat(written.size()).as("checkpoint writes for %d events", EVENTS).isBetween(1, EVENTS / 10);
        assertThat(lastSeqs(checkpoints)).as("session-checkpoints gets what the changelog gets").isEqualTo(written);
        // a write's size depends on where in its cycle the commit found the session (a call open or not), so each write
        // at a stop late in the session is compared with the one at the same point of a cycle early in it (before the stops,
        // commits fell where the projector's speed put them, and once no point of a cycle was written both early and late)
        Map<Long, Integer> sizes = sizesBySeq(checkpointWrites);
        for (int i = 0; i < CYCLE; i++) {
            long early = EARLY + i;
            long late = LATE + i;
            assertThat(sizes).as("checkpoints written at the stops").containsKeys(early, late);
            assertThat((double) sizes.get(late)).as("the checkpoint write at %d vs at %d (%d bytes)", late, early, sizes.get(early))
                    .isLessThanOrEqualTo(sizes.get(early) * 1.10);
        }

        // the call store's writes, counted on its changelog: each record's key names its call, and call c<i> belongs to the
        // cycle of events 2 + 5i .. 6 + 5i, so the first 400 cycles are the early 2,000 events and the last 400 the late ones.
        // The store writes back: a call's request, authorization and result folded within one commit are one write, and the
        // events arrive a thousand at a time, so most calls are written once (a commit between two of a call's events
        // writes it twice or three times)
        int cycles = (EVENTS - 1 + CYCLE - 1) / CYCLE;
        Window allCalls = callWrites(callWrites, sessionId, 0, cycles);
        assertThat(allCalls.calls()).as("calls on the call store's changelog").isEqualTo(cycles);
        assertThat(allCalls.records()).as("call-store writes for %d calls (3 changes each)", cycles).isLessThanOrEqualTo(cycles * 3L / 2);
        Window earlyCalls = callWrites(callWrites, sessionId, 0, 400);
        Window lateCalls = callWrites(callWrites, sessionId, cycles - 400, cycles);
        assertThat(lateCalls.largest()).as("the largest call-store write late vs early (%d)", earlyCalls.largest())
                .isLessThanOrEqualTo((int) (earlyCalls.largest() * 1.10));
    }

    /** A turn with a tool call, the same shape every time, so early and late events cost the same if nothing grows. */
    private static List<EventPayload> cycle(String sessionId, int i, long seq) {
        String call = "c" + i;
        return List.of(new UserMessage("next " + i, null),
                new AssistantMessage("reading", null, List.of(new ToolCall(call, "read_file", "{\"path\":\"f" + i + "\"}")), new TokenUsage(10, 5)),
                new ToolCallAuthorized(call, AuthorizationBasis.POLICY),
                new ToolResult(call, sessionId + "/" + (seq + 1) + "/" + call, ToolStatus.OK, "body of f" + i, null),
                new StepCompleted(i + 1, "read f" + i, true, null));
    }

    /** The size of the first checkpoint written at {@code seq} or later. */
    private static int sizeFrom(List<ConsumerRecord<byte[], byte[]>> checkpoints, long seq) throws Exception {
        for (var r : checkpoints) {
            if (DeterminismIT.lastSeqOf(r.value()) >= seq) {
                return r.value().length;
            }
        }
        throw new AssertionError("no checkpoint at or after seq " + seq);
    }

    /**
     * Appends the script's events up to {@code seq} (a thousand at a time) and waits until the projector has written the
     * session's checkpoint at {@code seq}.
     */
    private static void writeThrough(EventWriter.Session s, List<EventPayload> script, long seq, TopicLayout layout) {
        while (s.lastSeq() < seq) {
            int from = (int) s.lastSeq() - 1; // the script starts at seq 2
            int to = (int) Math.min(seq - 1, from + 1000L);
            s.add(script.subList(from, to).toArray(EventPayload[]::new));
        }
        await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(200)).until(() -> {
            var records = TopicReader.readAll(layout.name(Topics.SESSION_CHECKPOINTS));
            return !records.isEmpty() && DeterminismIT.lastSeqOf(records.get(records.size() - 1).value()) == seq;
        });
    }

    /** Each write's size by its checkpoint's lastSeq. */
    private static Map<Long, Integer> sizesBySeq(List<ConsumerRecord<byte[], byte[]>> writes) throws Exception {
        var sizes = new TreeMap<Long, Integer>();
        for (var r : writes) {
            sizes.put(DeterminismIT.lastSeqOf(r.value()), r.serializedValueSize());
        }
        return sizes;
    }

    private static List<Long> lastSeqs(List<ConsumerRecord<byte[], byte[]>> checkpoints) throws Exception {
        var seqs = new ArrayList<Long>();
        for (var r : checkpoints) {
            seqs.add(DeterminismIT.lastSeqOf(r.value()));
        }
        return seqs;
    }

    /** Calls written, records written, and the largest record (key and value bytes). */
    private record Window(long calls, long records, int largest) {}

    /** The writes to the call store of calls c{@code from} .. c{@code to - 1}, as its changelog holds them. */
    private static Window callWrites(List<ConsumerRecord<byte[], byte[]>> writes, String sessionId, int from, int to) {
        String prefix = sessionId + '\u0000' + "c";
        var calls = new HashSet<Integer>();
        long records = 0;
        int largest = 0;
        for (var r : writes) {
            String key = new String(r.key(), StandardCharsets.UTF_8);
            if (key.startsWith(prefix)) {
                int call = Integer.parseInt(key.substring(prefix.length()));
                if (call >= from && call < to) {
                    calls.add(call);
                    records++;
                    largest = Math.max(largest, r.serializedKeySize() + Math.max(0, r.serializedValueSize()));
                }
            }
        }
        return new Window(calls.size(), records, largest);
    }
}
