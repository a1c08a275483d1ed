package dev.tether.executor.kafka;

import dev.tether.avro.SessionCommand;
import dev.tether.avro.ToolOutcome;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.InvalidTimestampException;

/**
 * The executor's two writes, a ledger entry and a session command, each returning only once the broker has
 * acknowledged it (the producer is {@code acks=all} and idempotent): a step starts only when the one before it is
 * durable. A call's first ledger entry is written fenced ({@link FencedWrites}), its later ones and every command with
 * the idempotent producer. Thread-safe, as the producers are.
 */
final class AckedWriter {

    /** How a call's first ledger entry is written so that an expelled instance's is refused: {@link LedgerTransactions}. */
    @FunctionalInterface
    interface FencedWrites {
        /**
         * Writes {@code record}, acknowledged, unless the group coordinator refuses {@code fence}.
         *
         * @throws LedgerTransactions.FencedException if it refused: nothing was written
         * @throws TimestampRefusedException          if the broker refused the record's timestamp: nothing was written
         */
        RecordMetadata write(ProducerRecord<String, SpecificRecord> record, Fence fence);
    }

    private final Producer<String, SpecificRecord> producer;
    private final FencedWrites fenced;
    private final TopicLayout layout;

    AckedWriter(Producer<String, SpecificRecord> producer, FencedWrites fenced, TopicLayout layout) {
        this.producer = producer;
        this.fenced = fenced;
        this.layout = layout;
    }

    /**
     * Writes a ledger entry to {@code tool-outcomes}, keyed by its idempotency key, with the record timestamp
     * {@code timestampMillis} (the {@link Ledger} finds a call's records by time); fenced by {@code fence} if there is one.
     */
    void ledgerEntry(ToolOutcome outcome, long timestampMillis, Optional<Fence> fence) {
        var record = new ProducerRecord<String, SpecificRecord>(layout.name(Topics.TOOL_OUTCOMES), null, timestampMillis,
                outcome.getIdempotencyKey(), outcome);
        if (fence.isPresent()) {
            fenced.write(record, fence.get());
        } else {
            send(record);
        }
    }

    /** Sends a command to the sequencer on {@code session-commands}, keyed by its session. */
    void sessionCommand(String sessionId, SessionCommand command) {
        send(new ProducerRecord<>(layout.name(Topics.SESSION_COMMANDS), sessionId, command));
    }

    private void send(ProducerRecord<String, SpecificRecord> record) {
        acknowledged(record, producer);
    }

    /**
     * Sends {@code record} with {@code producer} and waits for the broker's acknowledgement.
     *
     * @throws TimestampRefusedException if the broker refused the record's timestamp
     * @throws IllegalStateException     if it was not acknowledged (nothing is known to be written), or the wait interrupted
     */
    static RecordMetadata acknowledged(ProducerRecord<String, SpecificRecord> record, Producer<String, SpecificRecord> producer) {
        try {
            return producer.send(record).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while writing to " + record.topic(), e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof InvalidTimestampException refused) {
                throw new TimestampRefusedException(record.topic(), record.timestamp(), refused);
            }
            throw new IllegalStateException("could not write to " + record.topic() + ": " + e.getCause().getMessage(),
                    e.getCause());
        }
    }

    /**
     * The broker refused a record for its timestamp ({@code InvalidTimestampException}: further ahead of its clock than
     * {@code message.timestamp.after.max.ms}, or behind it more than {@code message.timestamp.before.max.ms}): a definite
     * answer, which the same record gets again until the broker's clock or settings change. Nothing was written.
     */
    static final class TimestampRefusedException extends IllegalStateException {
        TimestampRefusedException(String topic, Long timestampMillis, InvalidTimestampException cause) {
            super("could not write to " + topic + ": the broker refused its timestamp " + timestampMillis + ": " + cause.getMessage(),
                    cause);
        }
    }
}
