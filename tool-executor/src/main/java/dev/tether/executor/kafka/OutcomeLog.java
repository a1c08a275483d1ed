package dev.tether.executor.kafka;

import dev.tether.avro.ToolOutcome;
import java.time.Instant;
import java.util.OptionalLong;

/**
 * The partitions of {@code tool-outcomes} as a log the {@link Ledger} reads on demand: where a partition ends, where its
 * records from a given time on begin, and its records in an offset range. {@link KafkaOutcomeLog} reads the topic; the
 * unit tests read a list. Not thread-safe: the ledger calls it under its lock.
 */
interface OutcomeLog {

    /** How many partitions {@code tool-outcomes} has. */
    int partitions();

    /**
     * Where {@code partition} ends: every record written before this call is below it and can be read (a transaction
     * open when it was asked is waited for).
     *
     * @throws LedgerUnavailableException if that cannot be had within the log's deadline
     */
    long end(int partition);

    /**
     * The first offset of {@code partition} whose record's timestamp is {@code time} or later (Kafka's
     * {@code offsetsForTimes}); empty if no record has such a timestamp yet. Every record before that offset has an
     * earlier timestamp.
     */
    OptionalLong firstAtOrAfter(int partition, Instant time);

    /**
     * Reads the records of {@code partition} from {@code from} (inclusive) to {@code to} (exclusive), in offset order,
     * handing each to {@code visitor} until it returns false. Offsets compaction removed are skipped.
     *
     * @throws LedgerUnavailableException if the records cannot be read within the log's deadline
     */
    void read(int partition, long from, long to, Visitor visitor);

    /** Sees one record of a read. */
    @FunctionalInterface
    interface Visitor {
        /**
         * @param value the outcome, or null for a tombstone (its call was erased)
         * @return whether to go on reading
         */
        boolean visit(long offset, long timestamp, String key, ToolOutcome value);
    }

    /** The ledger cannot be read now (the broker is unreachable, a record cannot be decoded): nothing may be decided. */
    final class LedgerUnavailableException extends RuntimeException {
        LedgerUnavailableException(String message, Throwable cause) {
            super(message, cause);
        }

        LedgerUnavailableException(String message) {
            super(message);
        }
    }
}
