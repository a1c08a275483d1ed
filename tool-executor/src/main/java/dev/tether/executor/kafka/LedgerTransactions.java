package dev.tether.executor.kafka;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingDeque;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.function.IntFunction;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.IllegalGenerationException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.jboss.logging.Logger;

/**
 * A call's first ledger write, which the consumer group's coordinator refuses from an instance it has expelled
 * (docs/ARCHITECTURE.md §6, <i>An instance that does not know it lost its partition</i>). The record is written in a
 * transaction that also commits, through {@code sendOffsetsToTransaction}, its {@link Fence}'s offset under the
 * generation its request was read in. The coordinator refuses that commit from a member of an older generation (KIP-447:
 * one frozen past its session timeout, whose partition went to another instance meanwhile), the transaction aborts, and
 * the record is never visible to the {@code read_committed} ledger: {@link FencedException}, and the call does not
 * start here. The partition's new owner fetches its offsets only once no such commit is pending ({@code require_stable}),
 * so it looks the call up after the old owner's record is committed (it reconciles) or aborted (it runs).
 *
 * <p>A producer has one transaction open at a time, so a write takes a producer of its own from a pool of at most
 * {@code size}, each made when as many writes run at once, under a transactional id of its own
 * ({@code <instance>-ledger-<n>}: the same after a restart, so that a new producer's {@code initTransactions} ends what
 * the last one of its id left open). A write holds its producer for a few milliseconds, so a few serve many workers
 * ({@link #MOST_PRODUCERS}); each costs a connection, a thread and some 300 KiB of heap. A producer whose transaction ended in doubt (a timeout, or fenced by another
 * producer of its id) is closed and made again at its next use. Thread-safe.
 */
final class LedgerTransactions implements AckedWriter.FencedWrites, AutoCloseable {

    private static final Logger LOG = Logger.getLogger(LedgerTransactions.class);

    /**
     * The most producers an executor makes, however many calls run at once: at 48 calls at once (the executor soak)
     * a producer per worker kept 15 MiB more of heap live, and 8 wrote as fast.
     */
    static final int MOST_PRODUCERS = 8;

    /** A pooled producer: made at first use, replaced after a transaction in doubt. */
    private static final class Slot {
        final int number;
        Producer<String, SpecificRecord> producer;

        Slot(int number) {
            this.number = number;
        }
    }

    private final IntFunction<Producer<String, SpecificRecord>> factory;
    /** The slots not in use, the one used last first: a producer is made only when as many writes run at once. */
    private final BlockingDeque<Slot> idle;
    private final int size;

    /**
     * @param factory makes the producer of a slot, with a transactional id of its own for each number
     * @param size    the most producers made, so the most transactions open at once (a write waits for a producer)
     */
    LedgerTransactions(IntFunction<Producer<String, SpecificRecord>> factory, int size) {
        this.factory = factory;
        this.size = size;
        this.idle = new LinkedBlockingDeque<>(size);
        for (int n = 0; n < size; n++) {
            idle.add(new Slot(n));
        }
    }

    @Override
    public RecordMetadata write(ProducerRecord<String, SpecificRecord> record, Fence fence) {
        Slot slot = take();
        try {
            if (slot.producer == null) {
                slot.producer = started(slot.number);
            }
            return write(slot, record, fence);
        } finally {
            idle.addFirst(slot);
        }
    }

    private Producer<String, SpecificRecord> started(int number) {
        var producer = factory.apply(number);
        try {
            producer.initTransactions();
            return producer;
        } catch (KafkaException e) {
            producer.close(Duration.ZERO);
            throw new IllegalStateException("could not start the ledger's transactional producer " + number + ": " + e.getMessage(), e);
        }
    }

    private RecordMetadata write(Slot slot, ProducerRecord<String, SpecificRecord> record, Fence fence) {
        var producer = slot.producer;
        try {
            producer.beginTransaction();
            RecordMetadata written;
            try {
                written = AckedWriter.acknowledged(record, producer);
            } catch (RuntimeException notWritten) { // not serialized, not acknowledged, its timestamp refused: nothing to commit
                abort(slot);
                throw notWritten instanceof IllegalStateException definite ? definite
                        : new IllegalStateException("could not write to " + record.topic() + ": " + notWritten.getMessage(), notWritten);
            }
            producer.sendOffsetsToTransaction(Map.of(fence.partition(), new OffsetAndMetadata(fence.from())), fence.group());
            producer.commitTransaction();
            return written;
        } catch (KafkaException e) {
            if (refusedByTheGroup(e)) {
                abort(slot);
                throw new FencedException(record.key(), fence, e);
            }
            // in doubt (a timeout: the transaction may yet commit; the producer fenced by another of its id): a new producer
            // of the id ends it either way before it writes; the call comes again and is looked up
            discard(slot);
            throw new IllegalStateException("could not write to " + record.topic() + " in a transaction: " + e.getMessage(), e);
        }
    }

    /** Whether the coordinator refused the transaction's offset commit: the request was read in a generation that is over. */
    private static boolean refusedByTheGroup(Throwable thrown) {
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            if (t instanceof CommitFailedException || t instanceof FencedInstanceIdException || t instanceof IllegalGenerationException
                    || t instanceof UnknownMemberIdException) {
                return true;
            }
        }
        return false;
    }

    private void abort(Slot slot) {
        try {
            slot.producer.abortTransaction();
        } catch (KafkaException e) {
            LOG.warnf("the ledger's transactional producer %d could not abort its transaction; replaced: %s", slot.number, e.getMessage());
            discard(slot);
        }
    }

    /**
     * Closes the slot's producer without waiting (what it had in flight is of a transaction in doubt, which the next
     * producer of its id ends): a producer cut off from the broker would otherwise hold the worker for its delivery
     * timeout, two minutes.
     */
    private static void discard(Slot slot) {
        try {
            slot.producer.close(Duration.ZERO);
        } catch (KafkaException e) {
            LOG.debugf("closing the ledger's transactional producer %d: %s", slot.number, e.getMessage());
        }
        slot.producer = null;
    }

    private Slot take() {
        try {
            return idle.takeFirst();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a ledger producer", e);
        }
    }

    /** Closes every producer; called once no call is being written any more. */
    @Override
    public void close() {
        for (int n = 0; n < size; n++) {
            Slot slot = idle.poll();
            if (slot != null && slot.producer != null) {
                discard(slot);
            }
        }
    }

    /**
     * The group coordinator refused the write's offset commit: the call's request was read in a generation of the group
     * that is over, so its partition may be another instance's now. Nothing was written.
     */
    static final class FencedException extends IllegalStateException {
        FencedException(String key, Fence fence, KafkaException cause) {
            super(key + ": the group coordinator refused its first ledger write (" + fence.partition() + " was read in generation "
                    + fence.group().generationId() + " by member " + fence.group().memberId() + ", expelled since): "
                    + cause.getMessage(), cause);
        }
    }
}
