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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
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
 * poll's calls to {@link CallHandler}: one session's calls one after another in log order, different sessions' calls
 * at once on {@code workers}. While a batch runs, the partitions are paused and the consumer keeps polling, so a long
 * tool does not make it leave the group.
 *
 * <p>An offset is committed only after its call's outcome is recorded and reported, so a crash makes the request come
 * again, and the ledger decides what that means (report again, reconcile, or run). If handling fails (the broker is
 * unreachable), or the commit does, the batch's partitions go back to where the batch started and the calls come again:
 * a call that finished meanwhile is only reported again. Nothing a poll returns during a batch is dropped: a partition
 * assigned meanwhile goes back to its first record returned, paused until the batch is done.
 *
 * <p>Before a batch's calls are handled, the {@link Ledger} looks them all up (one read per partition, on a worker
 * thread while this one keeps polling); a lookup that cannot read the ledger fails the batch like any other failure.
 * Nothing is read when partitions are assigned: a partition's ledger window is started by its first batch, from the
 * time its oldest pending call was authorized. When partitions are revoked, the running batch's calls of them that have
 * not started are left to their next owner (asked again right before a call's first ledger write,
 * {@link CallHandler.Claim}, so one that was waiting for its catch-up does not start either), the ones running finish,
 * the batch is committed (a revoked partition up to its first call not started), then their windows are dropped. What
 * this instance is not told in time (it froze past its session timeout and was expelled), the group coordinator
 * refuses: each call's first ledger write commits the batch's start on its partition under the generation the batch was
 * read in ({@link Fence}, {@link LedgerTransactions}). A request or a ledger record whose schema the registry does not
 * give (it does not answer) is read again once it does, never skipped. Runs on one thread.
 */
final class ExecutorLoop implements Runnable {

    private static final Logger LOG = Logger.getLogger(ExecutorLoop.class);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final Duration RETRY_BACKOFF = Duration.ofSeconds(1);

    private final Consumer<String, ToolRequest> requests;
    private final Ledger ledger;
    private final CallHandler handler;
    private final ExecutorService workers;
    private final String requestsTopic;
    private volatile boolean running = true;
    private volatile boolean ready;
    private Batch batch;

    /**
     * One poll's calls, being handled. {@code revoked}: partitions given up while it runs, of which no call starts any more;
     * {@code firstSkipped}: the offset of the first call of a partition not started (given up, or its first write refused
     * by the group coordinator), where its commit stops.
     */
    private record Batch(CompletableFuture<Void> done, Map<TopicPartition, OffsetAndMetadata> next, Map<TopicPartition, Long> first,
                         Set<TopicPartition> revoked, Map<TopicPartition, Long> firstSkipped) {}

    /** A request of a batch and where it was read. */
    private record Call(ToolRequest request, TopicPartition partition, long offset) {}

    /** A call's claim: its partition not given up while its batch runs, its first write fenced by the batch's generation. */
    private record BatchClaim(Set<TopicPartition> revoked, Fence fenced) implements CallHandler.Claim {
        @Override
        public boolean held() {
            return !revoked.contains(fenced.partition());
        }

        @Override
        public Optional<Fence> fence() {
            return Optional.of(fenced);
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

    /** Stops the loop after the running batch; returns at once. */
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
            }
        } catch (WakeupException e) {
            // stop() was called
        } finally {
            finishBatch();
            requests.close();
        }
    }

    private void pollOnce() {
        try {
            var records = requests.poll(POLL);
            ready = true;
            if (!records.isEmpty()) {
                batch = dispatch(records);
                requests.pause(requests.assignment());
                while (batch != null && !batch.done().isDone() && running) {
                    // paused: keeps the membership and runs rebalances; a partition assigned meanwhile is not paused
                    pollDuringBatch();
                }
                finishBatch();
                var paused = new HashSet<>(requests.paused());
                paused.retainAll(requests.assignment()); // a partition given up meanwhile is no longer this consumer's to resume
                requests.resume(paused);
            }
        } catch (RecordDeserializationException e) {
            if (RegistryUnavailableException.in(e).isPresent()) {
                // the request's schema could not be looked up: it is read again, never skipped
                LOG.warnf("tool-requests %s offset %d waits for the schema registry: %s", e.topicPartition(), e.offset(),
                        e.getCause().getMessage());
                sleep(RETRY_BACKOFF);
                return;
            }
            LOG.errorf("tool-requests %s offset %d cannot be read, skipped (no call can be run or reported from it): %s",
                    e.topicPartition(), e.offset(), e.getMessage());
            requests.seek(e.topicPartition(), e.offset() + 1);
        }
    }

    /**
     * Polls while a batch runs. A record that cannot be read, of a partition assigned meanwhile, is left where it is, its
     * partition paused, and dealt with once the batch is done ({@link #pollOnce}): thrown from here, it would leave the
     * running batch behind, neither committed nor rewound, while the next poll's records ran beside it.
     */
    private void pollDuringBatch() {
        try {
            putBack(requests.poll(POLL));
        } catch (RecordDeserializationException e) {
            requests.seek(e.topicPartition(), e.offset());
            requests.pause(List.of(e.topicPartition())); // resumed with the batch's partitions
        }
    }

    /**
     * Puts what a poll returned while a batch ran back where it was, to be read once the batch is done, and pauses its
     * partitions: only a partition assigned during the batch returns anything then, and its requests must neither be
     * dropped (its position has moved past them, and the next commit would pass them for good) nor run beside the batch.
     */
    private void putBack(ConsumerRecords<String, ToolRequest> polled) {
        for (TopicPartition partition : polled.partitions()) {
            requests.seek(partition, polled.records(partition).get(0).offset());
            requests.pause(List.of(partition));
        }
    }

    private Batch dispatch(Iterable<ConsumerRecord<String, ToolRequest>> records) {
        var bySession = new LinkedHashMap<String, List<Call>>();
        var byPartition = new HashMap<Integer, List<ToolRequest>>();
        var next = new HashMap<TopicPartition, OffsetAndMetadata>();
        var first = new HashMap<TopicPartition, Long>();
        for (var record : records) {
            var partition = new TopicPartition(record.topic(), record.partition());
            first.putIfAbsent(partition, record.offset());
            next.put(partition, new OffsetAndMetadata(record.offset() + 1));
            if (record.value() == null) {
                continue; // a tombstone: nothing to run
            }
            bySession.computeIfAbsent(record.value().getSessionId(), s -> new ArrayList<>())
                    .add(new Call(record.value(), partition, record.offset()));
            byPartition.computeIfAbsent(record.partition(), p -> new ArrayList<>()).add(record.value());
        }
        // the generation these requests were read in: a call's first ledger write commits its batch's start under it, which
        // the coordinator refuses once this member was expelled, whether or not it knows yet (CallHandler.Claim)
        ConsumerGroupMetadata group = requests.groupMetadata();
        Set<TopicPartition> revoked = ConcurrentHashMap.newKeySet();
        var firstSkipped = new ConcurrentHashMap<TopicPartition, Long>();
        // the ledger answers for every call of the batch first, then the sessions' calls run; none starts once its partition
        // is given up (Rebalance): the partition's next owner runs it, and had this one started it too, it would run twice
        CompletableFuture<Void> done = CompletableFuture.runAsync(() -> ledger.prepare(byPartition), workers)
                .thenCompose(prepared -> CompletableFuture.allOf(bySession.values().stream()
                        .map(calls -> CompletableFuture.runAsync(() -> calls.forEach(call -> {
                            if (revoked.contains(call.partition())) {
                                firstSkipped.merge(call.partition(), call.offset(), Math::min);
                                return;
                            }
                            try {
                                // asked again right before the call's first write: it may have waited long since (its catch-up)
                                handler.handle(call.request(), new BatchClaim(revoked, new Fence(group, call.partition(),
                                        first.get(call.partition()))));
                            } catch (CallHandler.GivenUpException e) {
                                LOG.info(e.getMessage());
                                firstSkipped.merge(call.partition(), call.offset(), Math::min);
                            }
                        }), workers))
                        .toArray(CompletableFuture[]::new)));
        return new Batch(done, next, first, revoked, firstSkipped);
    }

    /** Waits for the running batch; commits it, or rewinds its partitions if a call could not be handled. */
    private void finishBatch() {
        if (batch == null) {
            return;
        }
        Batch finishing = batch;
        batch = null;
        try {
            finishing.done().join();
        } catch (RuntimeException e) {
            ledger.release();
            LOG.errorf(e.getCause() != null ? e.getCause() : e, "a batch of tool calls failed; its calls come again in %s",
                    RETRY_BACKOFF);
            rewind(finishing);
            sleep(RETRY_BACKOFF);
            return;
        }
        ledger.release();
        var owned = new HashMap<>(finishing.next());
        owned.keySet().retainAll(requests.assignment());
        // a partition given up while the batch ran: committed up to its first call not started, which its next owner runs
        finishing.firstSkipped().forEach((partition, offset) -> owned.computeIfPresent(partition, (p, o) -> new OffsetAndMetadata(offset)));
        if (owned.isEmpty()) {
            return;
        }
        try {
            requests.commitSync(owned);
        } catch (WakeupException e) {
            throw e;
        } catch (KafkaException e) {
            // not committed (the coordinator did not answer, a rebalance began, or this member was removed): the loop goes
            // on, and the calls come again, to this instance or the partition's next owner, and are reported again from the
            // ledger, not run
            LOG.warnf(e, "the offsets of a finished batch of tool calls were not committed; its calls come again: %s", owned.keySet());
            rewind(finishing);
            return;
        }
        // a call whose first write the coordinator refused while its partition stays here (the generation changed under the
        // batch without a revocation, as a cooperative rebalance does): read again from there, in the generation now, rather
        // than left behind the position until the partition next moves
        finishing.firstSkipped().forEach((partition, offset) -> {
            if (!finishing.revoked().contains(partition) && requests.assignment().contains(partition)) {
                LOG.infof("%s: reading again from offset %d, whose call's first write the group coordinator refused", partition, offset);
                requests.seek(partition, offset);
            }
        });
    }

    /** Puts the batch's partitions this consumer still holds back where the batch started: its calls come again. */
    private void rewind(Batch batch) {
        var assigned = requests.assignment();
        batch.first().forEach((partition, offset) -> {
            if (assigned.contains(partition)) {
                requests.seek(partition, offset);
            }
        });
    }

    private final class Rebalance implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            if (!partitions.isEmpty()) {
                LOG.infof("giving up %s: finishing the running calls first, starting none of theirs", partitions);
            }
            if (batch != null) {
                // the wait is for the calls running, each bounded by its tool's timeout, not for the whole batch: a wait past
                // the group's rebalance timeout would give the partitions to another executor while calls still start here
                batch.revoked().addAll(partitions);
            }
            finishBatch();
            ledger.drop(partitions.stream().map(TopicPartition::partition).toList());
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            // nothing is read here: each partition's first batch starts its ledger window (Ledger.prepare)
            LOG.infof("assigned %s", partitions);
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
