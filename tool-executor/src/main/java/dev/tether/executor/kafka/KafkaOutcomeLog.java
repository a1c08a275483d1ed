package dev.tether.executor.kafka;

import dev.tether.avro.ToolOutcome;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;

/**
 * {@link OutcomeLog} over {@code tool-outcomes} itself, read with a consumer of its own ({@code read_committed}, no
 * group: partitions are assigned and sought by hand). A read that makes no progress for {@code timeout} (the broker is
 * away), or meets a record it cannot decode, fails with {@link LedgerUnavailableException}: the ledger answers nothing
 * rather than a guess. Not thread-safe, as the consumer is not.
 *
 * <p>A call's first record is written in a transaction ({@link LedgerTransactions}), and a {@code read_committed}
 * consumer reads nothing past the first transaction still open: not even the records committed after it. So
 * {@link #end} waits until every record written when it was asked ({@code written}, a {@code read_uncommitted}
 * consumer's end) is readable: a transaction is open for milliseconds, or, left open by a frozen instance, until the
 * broker aborts it ({@code transaction.timeout.ms}); past {@code timeout} it fails. Without the wait a lookup made while
 * a frozen instance's transaction was open would miss the records written after it, this instance's own too.
 */
final class KafkaOutcomeLog implements OutcomeLog, AutoCloseable {

    private static final Duration POLL = Duration.ofMillis(200);

    private final Consumer<String, ToolOutcome> consumer;
    private final Consumer<?, ?> written;
    private final String topic;
    private final Duration timeout;
    private int partitions;

    /**
     * @param consumer reads the records ({@code read_committed})
     * @param written  asked only where each partition ends, transactions still open included ({@code read_uncommitted})
     * @param timeout  how long a read may make no progress ({@code tether.executor.ledger.read-timeout}), and how long
     *                 {@link #end} waits for an open transaction
     * @throws IllegalArgumentException if {@code timeout} is not positive (no read would ever be done), naming the setting
     */
    KafkaOutcomeLog(Consumer<String, ToolOutcome> consumer, Consumer<?, ?> written, String topic, Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("tether.executor.ledger.read-timeout: must be a positive duration, e.g. PT30S, not "
                    + timeout);
        }
        this.consumer = consumer;
        this.written = written;
        this.topic = topic;
        this.timeout = timeout;
    }

    @Override
    public int partitions() {
        if (partitions == 0) {
            partitions = guarded("partitions of " + topic, () -> consumer.partitionsFor(topic, timeout).size());
        }
        return partitions;
    }

    @Override
    public long end(int partition) {
        var tp = new TopicPartition(topic, partition);
        // assigned first: the consumer keeps the last stable offset it is told of only for a partition it has (and
        // warns otherwise), and the read that follows is of this partition anyway
        consumer.assign(List.of(tp));
        long target = guarded("the end of " + tp + " as written", () -> written.endOffsets(List.of(tp), timeout).get(tp));
        long started = System.nanoTime();
        long backoff = 2;
        while (true) {
            long readable = guarded("the end of " + tp, () -> consumer.endOffsets(List.of(tp), timeout).get(tp));
            if (readable >= target) {
                return readable;
            }
            if (System.nanoTime() - started > timeout.toNanos()) {
                throw new LedgerUnavailableException(tp + " is readable up to offset " + readable + " but written up to " + target
                        + ": a transaction still open after " + timeout + " holds back what was written after it");
            }
            try {
                Thread.sleep(backoff); // a transaction just committed has its markers written within milliseconds
                backoff = Math.min(backoff * 2, POLL.toMillis() / 2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LedgerUnavailableException("interrupted while waiting for " + tp + " to be readable up to " + target, e);
            }
        }
    }

    @Override
    public OptionalLong firstAtOrAfter(int partition, Instant time) {
        var tp = new TopicPartition(topic, partition);
        OffsetAndTimestamp found = guarded("the offset of " + tp + " at " + time,
                () -> consumer.offsetsForTimes(Map.of(tp, Math.max(0, time.toEpochMilli())), timeout).get(tp));
        return found == null ? OptionalLong.empty() : OptionalLong.of(found.offset());
    }

    @Override
    public void read(int partition, long from, long to, Visitor visitor) {
        if (from >= to) {
            return;
        }
        var tp = new TopicPartition(topic, partition);
        consumer.assign(List.of(tp));
        consumer.seek(tp, from);
        long position = from;
        long lastProgress = System.nanoTime();
        while (position < to) {
            try {
                for (var record : consumer.poll(POLL).records(tp)) {
                    if (record.offset() >= to) {
                        return;
                    }
                    if (!visitor.visit(record.offset(), record.timestamp(), record.key(), record.value())) {
                        return;
                    }
                }
                long now = guarded("the position in " + tp, () -> consumer.position(tp, timeout));
                if (now > position) {
                    position = now;
                    lastProgress = System.nanoTime();
                } else if (System.nanoTime() - lastProgress > timeout.toNanos()) {
                    throw new LedgerUnavailableException("could not read " + tp + " from offset " + position + " to " + to
                            + ": no progress within " + timeout);
                }
            } catch (RecordDeserializationException e) {
                throw new LedgerUnavailableException(tp + " offset " + e.offset() + " cannot be decoded; no call of its "
                        + "partition is decided until it can: " + e.getMessage(), e);
            } catch (KafkaException e) {
                throw new LedgerUnavailableException("could not read " + tp + " from offset " + position + ": " + e.getMessage(), e);
            }
        }
    }

    @Override
    public void close() {
        consumer.close();
        written.close();
    }

    private static <T> T guarded(String what, java.util.function.Supplier<T> call) {
        try {
            return call.get();
        } catch (KafkaException e) {
            throw new LedgerUnavailableException("could not read " + what + ": " + e.getMessage(), e);
        }
    }
}
