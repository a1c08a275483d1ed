package dev.tether.cli.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What a replay of {@code session-events} found.
 *
 * @param topic          the topic read
 * @param partitions     its partitions
 * @param records        records read (events and tombstones), up to the end offsets taken when the replay started
 * @param events         events read and folded
 * @param tombstones     erasure tombstones read
 * @param sessions       sessions rebuilt (not erased)
 * @param erasedSessions sessions whose tombstones were read
 * @param elapsed        reading, deserializing and folding, from the first poll to the last record
 * @param problems       sessions whose log is not a gapless 1, 2, 3… or whose fold failed, one line each; empty when none
 * @param comparison     the rebuilt checkpoints against {@code session-checkpoints}, unless that was skipped
 * @param written        what was written to the {@code --into} topic; empty: nothing was written
 */
public record ReplayReport(String topic, int partitions, long records, long events, long tombstones, int sessions, int erasedSessions,
                           Duration elapsed, List<String> problems, Optional<Comparison> comparison, Optional<CheckpointSink.Written> written) {

    public ReplayReport {
        problems = List.copyOf(problems);
    }

    /** Events folded per second of {@link #elapsed}. */
    public double eventsPerSecond() {
        double seconds = elapsed.toNanos() / 1e9;
        return seconds <= 0 ? 0 : events / seconds;
    }

    /** True when every log was gapless, every fold succeeded, and no rebuilt checkpoint differs from the projector's. */
    public boolean clean() {
        return problems.isEmpty() && comparison.map(c -> c.differ().isEmpty()).orElse(true);
    }

    /**
     * Each rebuilt checkpoint against the latest one the projector wrote to {@code session-checkpoints}.
     *
     * @param topic   the checkpoints topic
     * @param equal   how many are equal, field for field (the Avro records are equal)
     * @param differ  the sessions whose checkpoints are at the same seq but differ, with the first field that does
     * @param behind  the sessions whose projector checkpoint is at an earlier seq (the projector is catching up)
     * @param ahead   the sessions whose projector checkpoint is at a later seq (events appended after the replay's snapshot)
     * @param missing the sessions the projector has no checkpoint of (yet)
     * @param elapsed reading the checkpoints and comparing
     */
    public record Comparison(String topic, int equal, List<String> differ, List<String> behind, List<String> ahead, List<String> missing,
                             Duration elapsed) {
        public Comparison {
            differ = List.copyOf(differ);
            behind = List.copyOf(behind);
            ahead = List.copyOf(ahead);
            missing = List.copyOf(missing);
        }
    }
}
