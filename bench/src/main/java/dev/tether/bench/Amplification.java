package dev.tether.bench;

import dev.tether.client.NewEvent;
import dev.tether.client.SessionWriter;
import dev.tether.client.TokenUsage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Figure 6: bytes Kafka keeps (every topic of Tether: commands, events, the services' changelogs, checkpoints)
 * per byte of payload appended, for sessions of a given number of turns. A turn is a user message and an
 * assistant message, each of {@code textBytes} of text; the payload is that text. Sizes are taken from the
 * broker's log directories once the projector has folded everything, before and after; nothing else writes
 * to the run's topics in between. Nothing has been compacted yet (the segments are still active), so the
 * changelogs count every version written.
 */
final class Amplification {
    /** Turns per append (a batch of 20 events), each turn with texts of its own. */
    private static final int TURNS_PER_BATCH = 10;

    /**
     * @param turns                 turns per session
     * @param sessions              sessions of that length
     * @param events                events appended (two per turn, plus each session's start and claim)
     * @param payloadBytes          bytes of text appended
     * @param storedBytes           bytes the broker's logs grew by, all of Tether's topics
     * @param ratio                 storedBytes / payloadBytes
     * @param ratioWithoutCommands  the same without {@code session-commands} (deleted after 7 days)
     * @param bytesByTopic          growth per topic
     */
    record Run(int turns, int sessions, long events, long payloadBytes, long storedBytes, double ratio, double ratioWithoutCommands,
            Map<String, Long> bytesByTopic) {
    }

    private final Rig rig;

    Amplification(Rig rig) {
        this.rig = rig;
    }

    Run measure(int turns, int totalEvents, int textBytes) throws Exception {
        // a batch holds ten turns of different text: compressed, it shrinks no further than the text's letters allow
        List<String> texts = AppendLoad.texts(2 * TURNS_PER_BATCH, textBytes);
        var cycle = new ArrayList<NewEvent>();
        for (int i = 0; i < texts.size(); i += 2) {
            cycle.add(NewEvent.userMessage(texts.get(i)));
            cycle.add(NewEvent.assistantMessage(texts.get(i + 1), List.of(), new TokenUsage(300, 250)));
        }
        int sessions = Math.max(1, totalEvents / (2 * turns));
        rig.awaitProjected();
        Map<String, Long> before = rig.tetherTopicBytes();
        List<SessionWriter> writers = rig.load().sessions("amp" + turns, sessions, Math.min(sessions, 8));
        // a session's log starts with session_started and session_claimed
        List<Long> reached = rig.load().fill(writers, Collections.nCopies(sessions, 2L), Collections.nCopies(sessions, 2 + 2 * turns),
                cycle.size(), cycle);
        long events = reached.stream().mapToLong(Long::longValue).sum();
        long payload = (events - 2L * sessions) * textBytes;
        rig.awaitProjected();
        Map<String, Long> grown = StoreSizes.delta(before, rig.tetherTopicBytes());
        long stored = StoreSizes.sum(grown);
        long commands = grown.getOrDefault("session-commands", 0L);
        return new Run(turns, sessions, events, payload, stored, (double) stored / payload, (double) (stored - commands) / payload, grown);
    }
}
