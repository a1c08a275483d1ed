package dev.tether.executor.kafka;

import dev.tether.avro.SessionEvent;
import dev.tether.core.event.TurnInterrupted;
import dev.tether.core.id.SessionEventKeyBytes;
import dev.tether.kit.kafka.RegistryUnavailableException;
import dev.tether.kit.kafka.SessionPartitioner;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.WakeupException;
import org.jboss.logging.Logger;

/**
 * Watches {@code session-events} for {@code turn_interrupted} and tells {@link InFlight}, which cancels the session's
 * running calls of the turns it interrupts. Every executor instance reads every partition (no group: a call may run on
 * any instance). It starts {@link #LOOKBACK} in the past, so an interruption that happened while the executor was down
 * still stops the calls of the turns it interrupted; older ones are not seen.
 *
 * <p>{@link #catchUp} is the executor's barrier before it starts a call: it returns once the watcher has read every
 * event of the session's partition that was committed when it was called, so an interruption that is in the log before
 * a call starts is always known to {@link InFlight} by then, however far the watcher lagged behind the request. Runs on
 * one thread; {@link #catchUp} and {@link #stop} may be called from any thread.
 */
final class InterruptWatcher implements Runnable {

    static final Duration LOOKBACK = Duration.ofMinutes(15);
    private static final Duration POLL = Duration.ofMillis(500);
    /** The poll while a catch-up waits: its end may be a transaction marker, which a poll does not return for. */
    private static final Duration WAITING_POLL = Duration.ofMillis(20);
    /** How long one look-up of the partitions' ends may take before the watcher polls again and retries it. */
    private static final Duration END_OFFSETS_TIMEOUT = Duration.ofSeconds(5);
    private static final Logger LOG = Logger.getLogger(InterruptWatcher.class);

    /** The barrier a call passes before it starts: see {@link InterruptWatcher#catchUp}. */
    @FunctionalInterface
    interface CatchUp {
        /**
         * Returns once every interruption of {@code sessionId} committed to the log before this call is known to
         * {@link InFlight}.
         *
         * @throws IllegalStateException if that cannot be confirmed in time: the call must not start (it comes again)
         */
        void await(String sessionId);
    }

    /** A catch-up asked for and not yet located: the watcher looks its partition's end up. */
    private record Asked(String sessionId, CompletableFuture<Void> done) {}

    /** A catch-up located: done once the watcher's position on {@code partition} reaches {@code end}. */
    private record Located(TopicPartition partition, long end, CompletableFuture<Void> done) {}

    private final Consumer<byte[], SessionEvent> events;
    private final InFlight inFlight;
    private final BiConsumer<String, Instant> erasures;
    private final String topic;
    private final Duration catchUpTimeout;
    private final Queue<Asked> asked = new ConcurrentLinkedQueue<>();
    /** The watcher thread's own: taken from {@link #asked}, their ends not yet known. */
    private final List<Asked> locating = new ArrayList<>();
    /** The watcher thread's own. */
    private final List<Located> waiting = new ArrayList<>();
    private volatile boolean running = true;
    private volatile boolean ready;
    private int partitions;

    /**
     * @param catchUpTimeout how long {@link #catchUp} waits before it gives up and the call is not started
     * @param erasures       told of each session erased and when (the tombstone's timestamp; once per tombstone), before
     *                       a catch-up passes it: the executor removes its workspace
     */
    InterruptWatcher(Consumer<byte[], SessionEvent> events, InFlight inFlight, TopicLayout layout, Duration catchUpTimeout,
                     BiConsumer<String, Instant> erasures) {
        this.events = events;
        this.erasures = erasures;
        this.inFlight = inFlight;
        this.topic = layout.name(Topics.SESSION_EVENTS);
        this.catchUpTimeout = catchUpTimeout;
    }

    /**
     * An erasure's tombstone: the session's interruptions go with its events, so that a session made again under its id
     * is not cut off by them, and its calls stop ({@link InFlight#erased}); and whoever else must know is told
     * ({@code erasures}).
     */
    private void erased(byte[] key, Instant at) {
        String sessionId;
        try {
            if (key == null) {
                throw new IllegalArgumentException("it has none");
            }
            sessionId = SessionEventKeyBytes.decode(key).sessionId();
        } catch (IllegalArgumentException e) {
            LOG.warnf("a tombstone on session-events whose key is not a session-events key, skipped: %s", e.getMessage());
            return;
        }
        inFlight.erased(sessionId, at);
        try {
            erasures.accept(sessionId, at);
        } catch (RuntimeException e) {
            LOG.warnf(e, "session %s was erased, and what the executor keeps of it could not all be removed", sessionId);
        }
    }

    boolean ready() {
        return ready;
    }

    void stop() {
        running = false;
        events.wakeup();
    }

    /**
     * Returns once the watcher has read, and told {@link InFlight} of, every event of {@code sessionId}'s partition of
     * {@code session-events} committed when it was called (its end then, read committed).
     *
     * @throws IllegalStateException if that takes more than the catch-up timeout (the broker is unreachable, the watcher
     *                               is far behind) or the watcher stops: the caller must not start the call
     */
    void catchUp(String sessionId) {
        var request = new Asked(sessionId, new CompletableFuture<>());
        asked.add(request);
        events.wakeup(); // a poll in progress returns at once
        try {
            request.done().get(catchUpTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            request.done().cancel(false); // the watcher drops it
            throw new IllegalStateException("the interruptions of session " + sessionId + " could not be read up to now within "
                    + catchUpTimeout + ": the call is not started, and is tried again");
        } catch (ExecutionException e) {
            throw new IllegalStateException("the interruptions of session " + sessionId + " could not be read: "
                    + e.getCause().getMessage() + "; the call is not started, and is tried again", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the interruptions of session " + sessionId, e);
        }
    }

    @Override
    public void run() {
        try {
            if (!assign()) {
                return;
            }
            ready = true;
            while (running) {
                try {
                    locate();
                    release();
                    for (var record : events.poll(waiting.isEmpty() ? POLL : WAITING_POLL)) {
                        SessionEvent event = record.value();
                        if (event == null) {
                            erased(record.key(), Instant.ofEpochMilli(record.timestamp()));
                        } else if (TurnInterrupted.TYPE.equals(event.getType())) {
                            inFlight.interrupt(event.getSessionId(), event.getSeq());
                        }
                    }
                    release();
                } catch (WakeupException e) {
                    // a catch-up was asked for (it is located next), or stop() was called
                } catch (RecordDeserializationException e) {
                    if (RegistryUnavailableException.in(e).isPresent()) {
                        // an interruption must not be missed: the event is read again once the registry answers
                        LOG.warnf("session-events %s offset %d waits for the schema registry: %s", e.topicPartition(), e.offset(),
                                e.getCause().getMessage());
                        pause(REGISTRY_BACKOFF);
                        continue;
                    }
                    LOG.warnf("session-events %s offset %d cannot be read, skipped: %s", e.topicPartition(), e.offset(),
                            e.getMessage());
                    events.seek(e.topicPartition(), e.offset() + 1);
                } catch (org.apache.kafka.common.errors.TimeoutException e) {
                    LOG.debugf("the ends of session-events could not be looked up yet (%s); trying again", e.getMessage());
                }
            }
        } finally {
            var stopped = new IllegalStateException("the interruption watcher stopped");
            asked.forEach(a -> a.done().completeExceptionally(stopped));
            locating.forEach(a -> a.done().completeExceptionally(stopped));
            waiting.forEach(w -> w.done().completeExceptionally(stopped));
            events.close();
        }
    }

    /** How long the watcher waits before reading an event again whose schema the registry did not give. */
    private static final Duration REGISTRY_BACKOFF = Duration.ofSeconds(1);

    private static void pause(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Assigns every partition and seeks {@link #LOOKBACK} back; false if stopped first. */
    private boolean assign() {
        while (running) {
            try {
                var all = events.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
                events.assign(all);
                seekToLookback(all);
                partitions = all.size();
                return true;
            } catch (WakeupException e) {
                // a catch-up asked for before the start: it is located once the partitions are assigned
            } catch (org.apache.kafka.common.errors.TimeoutException e) {
                LOG.warnf("session-events cannot be assigned yet (%s); trying again", e.getMessage());
            }
        }
        return false;
    }

    /** Looks up the current end of the partition of every catch-up asked for since the last look. */
    private void locate() {
        for (Asked a; (a = asked.poll()) != null; ) {
            locating.add(a);
        }
        if (locating.isEmpty()) {
            return;
        }
        var byPartition = new HashMap<Asked, TopicPartition>();
        var partitionsAsked = new LinkedHashSet<TopicPartition>();
        for (Asked a : locating) {
            var partition = new TopicPartition(topic, SessionPartitioner.partition(a.sessionId(), partitions));
            byPartition.put(a, partition);
            partitionsAsked.add(partition);
        }
        Map<TopicPartition, Long> ends = events.endOffsets(partitionsAsked, END_OFFSETS_TIMEOUT);
        for (Asked a : locating) {
            TopicPartition partition = byPartition.get(a);
            waiting.add(new Located(partition, ends.get(partition), a.done()));
        }
        locating.clear();
    }

    /** Completes every catch-up whose partition the watcher has read up to its end. */
    private void release() {
        waiting.removeIf(w -> {
            if (w.done().isDone()) {
                return true; // its caller gave up
            }
            if (events.position(w.partition()) >= w.end()) {
                w.done().complete(null);
                return true;
            }
            return false;
        });
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
