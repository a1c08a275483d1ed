package dev.tether.executor.kafka;

import dev.tether.avro.SessionEvent;
import dev.tether.core.event.TurnInterrupted;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.WakeupException;
import org.jboss.logging.Logger;

/**
 * Watches {@code session-events} for {@code turn_interrupted} and tells {@link InFlight}, which cancels the session's
 * running calls. Every executor instance reads every partition (no group: a call may run on any instance). It starts
 * {@link #LOOKBACK} in the past, so an interruption that happened while the executor was down still stops the calls
 * it authorized before; older ones are not seen. Runs on one thread.
 */
final class InterruptWatcher implements Runnable {

    static final Duration LOOKBACK = Duration.ofMinutes(15);
    private static final Logger LOG = Logger.getLogger(InterruptWatcher.class);

    private final Consumer<byte[], SessionEvent> events;
    private final InFlight inFlight;
    private final String topic;
    private volatile boolean running = true;
    private volatile boolean ready;

    InterruptWatcher(Consumer<byte[], SessionEvent> events, InFlight inFlight, TopicLayout layout) {
        this.events = events;
        this.inFlight = inFlight;
        this.topic = layout.name(Topics.SESSION_EVENTS);
    }

    boolean ready() {
        return ready;
    }

    void stop() {
        running = false;
        events.wakeup();
    }

    @Override
    public void run() {
        try {
            var partitions = events.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            events.assign(partitions);
            seekToLookback(partitions);
            ready = true;
            while (running) {
                try {
                    for (var record : events.poll(Duration.ofMillis(500))) {
                        SessionEvent event = record.value();
                        if (event != null && TurnInterrupted.TYPE.equals(event.getType())) {
                            inFlight.interrupt(event.getSessionId(), event.getSeq());
                        }
                    }
                } catch (RecordDeserializationException e) {
                    LOG.warnf("session-events %s offset %d cannot be read, skipped: %s", e.topicPartition(), e.offset(),
                            e.getMessage());
                    events.seek(e.topicPartition(), e.offset() + 1);
                }
            }
        } catch (WakeupException e) {
            // stop() was called
        } finally {
            events.close();
        }
    }

    private void seekToLookback(List<TopicPartition> partitions) {
        long since = Instant.now().minus(LOOKBACK).toEpochMilli();
        var query = new HashMap<TopicPartition, Long>();
        partitions.forEach(p -> query.put(p, since));
        Map<TopicPartition, OffsetAndTimestamp> found = events.offsetsForTimes(query);
        var end = events.endOffsets(partitions);
        for (var partition : partitions) {
            OffsetAndTimestamp at = found.get(partition);
            events.seek(partition, at != null ? at.offset() : end.get(partition));
        }
    }
}
