package dev.tether.executor.kafka;

import dev.tether.avro.ToolRequest;
import dev.tether.kit.kafka.RegistryUnavailableException;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.WakeupException;
import org.jboss.logging.Logger;

/**
 * The executor's main loop: consumes {@code tool-requests} (read_committed, offsets committed by hand) and hands each
 * call to {@link CallHandler} on {@code workers}: one session's calls one after another in log order, different
 * sessions' calls independently. The loop keeps polling while calls run, so a long call holds up only the later calls
 * of its own session, never another session's, and the instance does not leave the group.
 *
 * <p>An offset is committed only after its call's outcome is recorded and reported: each partition is committed up to
 * its oldest call not ended (its {@linkplain Owned#watermark watermark}), so a crash makes every such request come again,
 * and the ledger decides what that means (report again, reconcile, or run). If a call cannot be handled (the broker or
 * the registry unreachable), its partition stops: nothing more of it is read, its session's later calls do not start,
 * the other calls read end, and the partition is read again from the call not handled, a second later; a call that
 * ended meanwhile is only reported again. At most {@link #READ_AHEAD} requests are read ahead of their calls' end; past that the partitions are
 * paused.
 *
 * <p>Before a poll's calls are handled, the {@link Ledger} looks them up (one read per partition, on a worker thread
 * while this one keeps polling); a request of a key already in progress here (a request come again, an erasure) is looked
 * up when it comes to start, after the call before it has ended and released its answer ({@link Ledger#release}). A
 * lookup that cannot read the ledger fails its calls like any other failure. Nothing is read when partitions are
 * assigned: a partition's ledger window is started by its first lookup, from the time its oldest pending call was
 * authorized. When partitions are revoked, their calls that have not started are left to their next owner (asked again
 * right before a call's first ledger write, {@link CallHandler.Claim}, so one that was waiting for its catch-up does not
 * start either), the running ones finish, each partition is committed up to its first call not ended, then their
 * windows are dropped; stopping the loop does the same for every partition. What this instance is not told in time (it
 * froze past its session timeout and was expelled), the group coordinator refuses: each call's first ledger write
 * commits its partition's watermark under the generation its request was read in ({@link Fence},
 * {@link LedgerTransactions}). A request or a ledger record whose schema the registry does not give (it does not
 * answer) is read again once it does, never skipped. Runs on one thread; the calls' tasks, on the workers, touch only
 * the sessions' chains and what {@link Owned} shares with them.
 */
final class ExecutorLoop implements Runnable {

    private static final Logger LOG = Logger.getLogger(ExecutorLoop.class);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final Duration RETRY_BACKOFF = Duration.ofSeconds(1);
    /** The most requests read and not yet ended, of all partitions: past it, no partition is read until calls end. */
    static final int READ_AHEAD = 500;

    private final Consumer<String, ToolRequest> requests;
    private final Ledger ledger;
    private final CallHandler handler;
    private final ExecutorService workers;
    private final String requestsTopic;
    private volatile boolean running = true;
    private volatile boolean ready;
    private volatile int inProgress;
    private final Map<TopicPartition, Owned> owned = new HashMap<>();
    /** Each session's last call dispatched, until it ends: the session's next call starts after it. */
    private final Map<String, CompletableFuture<Void>> sessions = new ConcurrentHashMap<>();
    /** The idempotency keys of calls dispatched and not ended, each with how many. */
    private final Map<String, Integer> keys = new ConcurrentHashMap<>();

    /**
     * A partition's calls on this instance since it was assigned (or last read again). {@code pending}: the offsets of its
     * calls not ended (running, waiting their turn, or not handled); {@code unended}: their tasks; {@code stopAt}: the
     * first offset of a call not handled (it failed, or was given up), from which the partition is read again once all its
     * tasks have ended; nothing more of it is read meanwhile, and no later call of a session in {@code stopped} (that
     * call's) starts; once it is {@code revoked}, no call starts. The loop's thread alone touches {@code committed} and
     * {@code holdUntil}.
     */
    private static final class Owned {
        private static final long NONE = Long.MAX_VALUE;

        final TopicPartition partition;
        final ConcurrentSkipListSet<Long> pending = new ConcurrentSkipListSet<>();
        final Set<CompletableFuture<Void>> unended = ConcurrentHashMap.newKeySet();
        final AtomicLong stopAt = new AtomicLong(NONE);
        final Set<String> stopped = ConcurrentHashMap.newKeySet();
        volatile boolean failed;
        volatile boolean revoked;
        /** The offset after the last record read. */
        volatile long next;
        /** The offset last committed, or the first read if none was. */
        long committed;
        /** While a failure's backoff lasts ({@link System#nanoTime}), the partition is not read. */
        long holdUntil;
        /** Calls running now, guarded by this object: a revocation waits for them, not for the ones waiting their turn. */
        private int running;

        Owned(TopicPartition partition, long first) {
            this.partition = partition;
            this.next = first;
            this.committed = first;
        }

        /** At or before every request of the partition read and not ended: where a crash must read it again from. */
        long watermark() {
            Long oldest = pending.ceiling(0L);
            return oldest != null ? oldest : next;
        }

        /** Whether the partition is to be read again from a call not handled, or was given up: nothing more is read. */
        boolean stopping() {
            return revoked || stopAt.get() != NONE;
        }

        /**
         * Marks a call not handled: its session's later calls do not start either (they come again after it); true if it
         * is the first since the partition was last read again.
         */
        boolean notHandled(long offset, String session, boolean failure) {
            if (failure) {
                failed = true;
            }
            stopped.add(session);
            return stopAt.getAndAccumulate(offset, Math::min) == NONE;
        }

        /** Whether a call of {@code session} may start now; if it may, it is running until {@link #end}. */
        synchronized boolean begin(String session) {
            if (revoked || stopped.contains(session)) {
                return false;
            }
            running++;
            return true;
        }

        synchronized void end() {
            running--;
            notifyAll();
        }

        /** Starts no call any more, and waits for the running ones to end. */
        synchronized void revoke() {
            revoked = true;
            boolean interrupted = false;
            while (running > 0) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A call's claim: its partition not given up, its first write fenced by the generation it was read in. */
    private record Held(Owned owned, ConsumerGroupMetadata group) implements CallHandler.Claim {
        @Override
        public boolean held() {
            return !owned.revoked;
        }

        @Override
        public Optional<Fence> fence() {
            return Optional.of(new Fence(group, owned.partition, owned.watermark()));
        }
    }

    ExecutorLoop(Consumer<String, ToolRequest> requests, Ledger ledger, CallHandler handler, ExecutorService workers,
                 TopicLayout layout) {
        this.requests = requests;
        this.ledger = ledger;
        this.handler = handler;
        this.workers = workers;
        this.requestsTopic = layout.name(Topics.TOOL_REQUESTS);
    }

    /** Whether the loop has joined the group and polled. */
    boolean ready() {
        return ready;
    }

    /**
     * Calls read and not ended, as of the last poll: running, waiting for their session's previous call or for a worker,
     * or to be read again. At most about {@link #READ_AHEAD}.
     */
    int inProgress() {
        return inProgress;
    }

    /** Stops the loop: no call starts any more, the running ones finish; returns at once. */
    void stop() {
        running = false;
        requests.wakeup();
    }

    @Override
    public void run() {
        requests.subscribe(List.of(requestsTopic), new Rebalance());
        try {
            while (running) {
                pollOnce();
                settle();
            }
        } catch (WakeupException e) {
            // stop() was called
        } finally {
            giveUp(List.copyOf(owned.keySet()));
            requests.close();
        }
    }

    private void pollOnce() {
        try {
            var records = requests.poll(POLL);
            ready = true;
            if (!records.isEmpty()) {
                dispatch(records);
            }
        } catch (RecordDeserializationException e) {
            TopicPartition partition = e.topicPartition();
            if (RegistryUnavailableException.in(e).isPresent()) {
                // the request's schema could not be looked up: it is read again, never skipped
                LOG.warnf("tool-requests %s offset %d waits for the schema registry: %s", partition, e.offset(),
                        e.getCause().getMessage());
                owned(partition, e.offset()).holdUntil = System.nanoTime() + RETRY_BACKOFF.toNanos();
                return;
            }
            LOG.errorf("tool-requests %s offset %d cannot be read, skipped (no call can be run or reported from it): %s",
                    partition, e.offset(), e.getMessage());
            owned(partition, e.offset()).next = e.offset() + 1;
            requests.seek(partition, e.offset() + 1);
        }
    }

    private Owned owned(TopicPartition partition, long first) {
        return owned.computeIfAbsent(partition, p -> new Owned(p, first));
    }

    private void dispatch(ConsumerRecords<String, ToolRequest> records) {
        // the generation these requests were read in: a call's first ledger write commits its partition's watermark under
        // it, which the coordinator refuses once this member was expelled, whether or not it knows yet (CallHandler.Claim)
        ConsumerGroupMetadata group = requests.groupMetadata();
        var lookUp = new HashMap<Owned, List<ToolRequest>>();
        var calls = new ArrayList<Map.Entry<Owned, ConsumerRecord<String, ToolRequest>>>();
        for (TopicPartition partition : records.partitions()) {
            List<ConsumerRecord<String, ToolRequest>> read = records.records(partition);
            Owned at = owned(partition, read.get(0).offset());
            if (at.stopping()) {
                continue; // read again from where it stopped, once its running calls end
            }
            for (var record : read) {
                at.next = record.offset() + 1;
                if (record.value() == null) {
                    continue; // a tombstone: nothing to run
                }
                at.pending.add(record.offset());
                calls.add(Map.entry(at, record));
                if (keys.merge(record.value().getIdempotencyKey(), 1, Integer::sum) == 1) {
                    lookUp.computeIfAbsent(at, p -> new ArrayList<>()).add(record.value());
                }
            }
        }
        // the ledger answers for the poll's calls first, all but a request of a key already in progress here (a request come
        // again, an erasure), which is looked up when it starts, after the one before it ended and released its answer
        CompletableFuture<Void> lookedUp = lookUp.isEmpty() ? CompletableFuture.completedFuture(null)
                : CompletableFuture.runAsync(() -> ledger.prepare(stillHeld(lookUp)), workers);
        for (var call : calls) {
            Owned at = call.getKey();
            ConsumerRecord<String, ToolRequest> record = call.getValue();
            String session = record.value().getSessionId();
            // after the session's previous call and the poll's lookup both: started before the lookup put its answer, the call
            // would look itself up, and the lookup's answer, read before the call's writes, would replace theirs
            CompletableFuture<Void> previous = sessions.get(session);
            CompletableFuture<Void> after = previous == null ? lookedUp : CompletableFuture.allOf(previous, lookedUp);
            CompletableFuture<Void> ended = after.handleAsync((ignored, failure) -> {
                handle(at, record.offset(), record.value(), group, failure);
                return null;
            }, workers);
            at.unended.add(ended);
            sessions.put(session, ended);
            ended.whenComplete((ignored, failure) -> {
                at.unended.remove(ended);
                sessions.remove(session, ended);
                keys.computeIfPresent(record.value().getIdempotencyKey(), (key, count) -> count > 1 ? count - 1 : null);
            });
        }
    }

    /**
     * The requests of partitions not given up since they were read, by partition: the lookup may wait for a worker past a
     * revocation, and would start a ledger window of a partition no longer here.
     */
    private static Map<Integer, List<ToolRequest>> stillHeld(Map<Owned, List<ToolRequest>> requests) {
        var held = new HashMap<Integer, List<ToolRequest>>();
        requests.forEach((at, read) -> {
            if (!at.revoked) {
                held.put(at.partition.partition(), read);
            }
        });
        return held;
    }

    /** Handles one call on a worker thread, unless its session stopped or its partition was given up; never throws. */
    private void handle(Owned at, long offset, ToolRequest request, ConsumerGroupMetadata group, Throwable lookUpFailure) {
        try {
            if (lookUpFailure != null) {
                if (at.notHandled(offset, request.getSessionId(), true)) {
                    LOG.errorf(lookUpFailure, "%s offset %d: the ledger could not be read; the partition is read again from its"
                            + " first call not handled in %s", at.partition, offset, RETRY_BACKOFF);
                }
            } else if (!at.begin(request.getSessionId())) {
                // after its session's call not handled: read again from that one; or left to the partition's next owner
                at.notHandled(offset, request.getSessionId(), false);
            } else {
                try {
                    // asked again right before the call's first write: it may have waited long since (its catch-up)
                    handler.handle(request, new Held(at, group));
                    at.pending.remove(offset);
                } finally {
                    at.end();
                }
            }
        } catch (CallHandler.GivenUpException e) {
            LOG.info(e.getMessage());
            at.notHandled(offset, request.getSessionId(), false);
        } catch (RuntimeException | Error e) {
            at.notHandled(offset, request.getSessionId(), true);
            LOG.errorf(e, "%s offset %d: %s could not be handled; the partition is read again from its first call not handled"
                    + " in %s", at.partition, offset, request.getIdempotencyKey(), RETRY_BACKOFF);
        } finally {
            ledger.release(request);
        }
    }

    /**
     * Between polls: reads a stopped partition again once its running calls have ended, commits every partition's
     * watermark that moved, and pauses what must not be read now.
     */
    private void settle() {
        long now = System.nanoTime();
        for (Owned at : owned.values()) {
            if (at.stopAt.get() != Owned.NONE && at.unended.isEmpty()) {
                readAgain(at, now);
            }
        }
        var moved = new HashMap<TopicPartition, OffsetAndMetadata>();
        owned.values().forEach(at -> {
            long watermark = at.watermark();
            if (watermark > at.committed) {
                moved.put(at.partition, new OffsetAndMetadata(watermark));
            }
        });
        if (commit(moved)) {
            moved.forEach((partition, offset) -> owned.get(partition).committed = offset.offset());
        }
        inProgress = owned.values().stream().mapToInt(at -> at.pending.size()).sum();
        pauseWhatWaits(now);
    }

    /** Reads a stopped partition again from its first call not handled; after a failure, once its backoff has passed. */
    private void readAgain(Owned at, long now) {
        long from = at.stopAt.get();
        if (at.failed) {
            at.holdUntil = now + RETRY_BACKOFF.toNanos();
        } else {
            LOG.infof("%s: reading again from offset %d, whose call's first write the group coordinator refused", at.partition, from);
        }
        requests.seek(at.partition, from);
        at.pending.clear();
        at.next = from;
        at.failed = false;
        at.stopped.clear();
        at.stopAt.set(Owned.NONE);
    }

    private void pauseWhatWaits(long now) {
        var assigned = requests.assignment();
        boolean readAhead = inProgress >= READ_AHEAD;
        var hold = new HashSet<TopicPartition>();
        for (TopicPartition partition : assigned) {
            Owned at = owned.get(partition);
            if (readAhead || at != null && (at.stopping() || now < at.holdUntil)) {
                hold.add(partition);
            }
        }
        var resume = new HashSet<>(requests.paused());
        resume.retainAll(assigned); // a partition given up is no longer this consumer's to resume
        resume.removeAll(hold);
        requests.pause(hold);
        requests.resume(resume);
    }

    /**
     * Commits the offsets; false if they were not (the loop goes on and commits them next time, or the partitions' next
     * owners read from before them).
     */
    private boolean commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
        if (offsets.isEmpty()) {
            return true;
        }
        try {
            requests.commitSync(offsets);
            return true;
        } catch (WakeupException e) {
            throw e;
        } catch (KafkaException e) {
            // the coordinator did not answer, a rebalance began, or this member was removed: the calls behind these offsets
            // come again only if the partition moves first, and are then reported again from the ledger, not run
            LOG.warnf(e, "the offsets of ended tool calls were not committed: %s", offsets);
            return false;
        }
    }

    /**
     * Gives partitions up: none of their calls starts any more, the running ones finish (each bounded by its tool's
     * timeout; the ones waiting their turn are not waited for), and each is committed up to its first call not ended,
     * which its next owner runs.
     */
    private void giveUp(Collection<TopicPartition> partitions) {
        var leaving = partitions.stream().map(owned::remove).filter(at -> at != null).toList();
        leaving.forEach(Owned::revoke);
        var last = new HashMap<TopicPartition, OffsetAndMetadata>();
        leaving.forEach(at -> last.put(at.partition, new OffsetAndMetadata(at.watermark())));
        commit(last);
    }

    private final class Rebalance implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            if (!partitions.isEmpty()) {
                LOG.infof("giving up %s: finishing the running calls first, starting none of theirs", partitions);
            }
            // the wait is for the calls running, each bounded by its tool's timeout, not for every call read: a wait past
            // the group's rebalance timeout would give the partitions to another executor while calls still start here
            giveUp(partitions);
            ledger.drop(partitions.stream().map(TopicPartition::partition).toList());
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            // nothing is read here: each partition's first lookup starts its ledger window (Ledger.prepare)
            LOG.infof("assigned %s", partitions);
        }
    }
}
