package dev.tether.cli.kafka;

import dev.tether.avro.Checkpoint;
import dev.tether.avro.SessionEvent;
import dev.tether.kit.kafka.AvroSerdes;
import dev.tether.kit.kafka.SessionEventKeySerde;
import dev.tether.kit.kafka.Topics;
import java.time.Duration;
import java.util.HashMap;
import java.util.Optional;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Rebuilds every session's checkpoint from {@code session-events} with the projector's own fold
 * ({@code Projection.evolve}, the function the projector-service runs live, for time travel and for
 * a lost checkpoint), in this process ({@link LogFold}). Then it can compare each rebuilt checkpoint
 * with the latest one in {@code session-checkpoints} (they must be equal field for field, since the
 * fold reads no clock), and write the rebuilt checkpoints to a topic of their own
 * ({@link CheckpointSink}), never to {@code session-checkpoints}.
 *
 * <p>It does not rebuild the projector's other state (the per-seq message store behind the model
 * context, the call records, the tool requests): those are projections of the same events, but
 * writing them is the projector's job, and a second writer would race it.
 */
public final class LogReplay {

    /** Progress of the read: events folded so far, the share of the log's offsets read (0 to 1), time since the first poll. */
    public interface Listener {
        void progress(long events, double fraction, Duration elapsed);
    }

    private final KafkaSettings settings;

    public LogReplay(KafkaSettings settings) {
        this.settings = settings;
    }

    /**
     * Replays the log, up to the end offsets it has when the replay starts.
     *
     * @param compare also compare the rebuilt checkpoints with {@code session-checkpoints}
     * @param into    also write the rebuilt checkpoints there; null: write nothing
     */
    public ReplayReport run(boolean compare, CheckpointSink into, Listener listener) {
        String topic = settings.layout().name(Topics.SESSION_EVENTS);
        var fold = new LogFold();
        long started;
        long read;
        int partitions;
        try (Serde<SessionEvent> values = AvroSerdes.valueSerde(settings.registry());
             var consumer = new KafkaConsumer<>(settings.consumer("tether-cli-replay"), new SessionEventKeySerde().deserializer(),
                     values.deserializer())) {
            var scan = new TopicScan<>(consumer, topic, settings.timeout());
            partitions = scan.partitions();
            started = System.nanoTime();
            read = scan.forEach(r -> fold.accept(r.key(), r.value(), r.partition(), r.offset()),
                    fraction -> listener.progress(fold.events(), fraction, Duration.ofNanos(System.nanoTime() - started)));
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
        Optional<ReplayReport.Comparison> comparison = compare ? Optional.of(compare(fold)) : Optional.empty();
        Optional<CheckpointSink.Written> written = into == null ? Optional.empty()
                : Optional.of(into.write(fold.checkpoints(), fold.tombstoned(), fold.problems().size()));
        return new ReplayReport(topic, partitions, read, fold.events(), fold.tombstones(), fold.sessions(), fold.erasedSessions(), elapsed,
                fold.problems(), comparison, written);
    }

    private ReplayReport.Comparison compare(LogFold fold) {
        long started = System.nanoTime();
        String topic = settings.layout().name(Topics.SESSION_CHECKPOINTS);
        var projected = new HashMap<String, Checkpoint>();
        try (Serde<Checkpoint> values = AvroSerdes.valueSerde(settings.registry());
             var consumer = new KafkaConsumer<>(settings.consumer("tether-cli-replay-checkpoints"), new StringDeserializer(),
                     values.deserializer())) {
            new TopicScan<>(consumer, topic, settings.timeout()).forEach(record -> {
                if (record.value() == null) {
                    projected.remove(record.key());
                } else {
                    projected.put(record.key(), record.value());
                }
            }, fraction -> { });
        }
        LogFold.Verdicts v = fold.compare(projected);
        return new ReplayReport.Comparison(topic, v.equal(), v.differ(), v.behind(), v.ahead(), v.missing(),
                Duration.ofNanos(System.nanoTime() - started));
    }
}
