package dev.tether.executor.kafka;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * The fenced writes of tests without a broker: each is sent with the test's producer as a plain write, its fence kept in
 * {@link #fences}; from {@link #expel} to {@link #readmit}, the group coordinator's refusal is played instead (nothing is
 * sent).
 * {@link LedgerTransactions} itself is tested in {@code LedgerTransactionsTest}, and on a broker in {@code FrozenExecutorIT}.
 */
final class FencedWritesDouble implements AckedWriter.FencedWrites {

    final List<Fence> fences = new CopyOnWriteArrayList<>();
    private final Producer<String, SpecificRecord> producer;
    private volatile boolean expelled;

    FencedWritesDouble(Producer<String, SpecificRecord> producer) {
        this.producer = producer;
    }

    /** From now on every fenced write is refused, as the coordinator refuses an expelled member's. */
    void expel() {
        expelled = true;
    }

    /** From now on fenced writes are accepted again, as after the member joined the group again. */
    void readmit() {
        expelled = false;
    }

    @Override
    public RecordMetadata write(ProducerRecord<String, SpecificRecord> record, Fence fence) {
        fences.add(fence);
        if (expelled) {
            throw new LedgerTransactions.FencedException(record.key(), fence, new CommitFailedException("expelled"));
        }
        return AckedWriter.acknowledged(record, producer);
    }
}
