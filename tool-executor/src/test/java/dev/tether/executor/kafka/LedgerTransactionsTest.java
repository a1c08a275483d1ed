package dev.tether.executor.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.avro.OutcomeState;
import dev.tether.avro.ToolOutcome;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The fenced first write's transaction, against Kafka's {@link MockProducer} (no broker; {@code FrozenExecutorIT} runs it
 * against a real group coordinator): what is committed with the record, what a refusal and a transaction in doubt leave.
 */
class LedgerTransactionsTest {

    private static final TopicPartition REQUESTS = new TopicPartition("tool-requests", 3);
    private static final Fence FENCE = new Fence(new ConsumerGroupMetadata("tether-tool-executor", 7, "member-1", Optional.of("executor-a")),
            REQUESTS, 41);

    private final List<MockProducer<String, SpecificRecord>> made = new ArrayList<>();
    /** Whether the broker refuses the next records' timestamps: their sends fail as a real producer's do, in the future. */
    private volatile boolean refuseTimestamps;
    private final LedgerTransactions transactions = new LedgerTransactions(n -> {
        var producer = new MockProducer<>(true, null, new StringSerializer(), (Serializer<SpecificRecord>) (topic, value) -> new byte[0]) {
            @Override
            public synchronized Future<RecordMetadata> send(ProducerRecord<String, SpecificRecord> record, Callback callback) {
                return refuseTimestamps ? CompletableFuture.failedFuture(new InvalidTimestampException("further ahead than allowed"))
                        : super.send(record, callback);
            }
        };
        made.add(producer);
        return producer;
    }, 2);

    @Test
    void aWrite_commitsItsRecordAndItsFencesOffset_underTheFencesGeneration_inOneTransaction() {
        transactions.write(started("s1/3/c1"), FENCE);

        var producer = made.get(0);
        assertThat(producer.transactionInitialized()).isTrue();
        assertThat(producer.transactionCommitted()).isTrue();
        assertThat(producer.history()).extracting(ProducerRecord::key).containsExactly("s1/3/c1");
        assertThat(producer.consumerGroupOffsetsHistory())
                .containsExactly(Map.of("tether-tool-executor", Map.of(REQUESTS, new OffsetAndMetadata(41))));
    }

    @Test
    void aWriteTheCoordinatorRefuses_isAbortedAndFenced_andItsProducerWritesTheNext() {
        transactions.write(started("s1/3/c1"), FENCE);
        var producer = made.get(0);
        producer.sendOffsetsToTransactionException = new CommitFailedException("the member's generation is over");

        assertThatThrownBy(() -> transactions.write(started("s1/4/c2"), FENCE))
                .isInstanceOf(LedgerTransactions.FencedException.class)
                .hasMessageContaining("s1/4/c2").hasMessageContaining("generation 7").hasMessageContaining("member-1");
        assertThat(producer.transactionAborted()).isTrue();
        assertThat(producer.history()).as("the refused record is not committed").extracting(ProducerRecord::key).containsExactly("s1/3/c1");

        producer.sendOffsetsToTransactionException = new FencedInstanceIdException("another member has the instance id");
        assertThatThrownBy(() -> transactions.write(started("s1/5/c3"), FENCE)).isInstanceOf(LedgerTransactions.FencedException.class);
        producer.sendOffsetsToTransactionException = null;
        transactions.write(started("s1/6/c4"), FENCE);
        assertThat(made).as("a refusal needs no new producer").hasSize(1);
        assertThat(producer.history()).extracting(ProducerRecord::key).containsExactly("s1/3/c1", "s1/6/c4");
    }

    @Test
    void aTransactionInDoubt_failsTheWrite_notAsFenced_andItsProducerIsReplaced() {
        transactions.write(started("s1/3/c1"), FENCE);
        var first = made.get(0);
        first.commitTransactionException = new TimeoutException("no answer from the transaction coordinator");

        assertThatThrownBy(() -> transactions.write(started("s1/4/c2"), FENCE))
                .isInstanceOf(IllegalStateException.class).isNotInstanceOf(LedgerTransactions.FencedException.class)
                .hasMessageContaining("in a transaction");
        assertThat(first.closed()).as("a new producer of its id ends the transaction in doubt").isTrue();

        transactions.write(started("s1/4/c2"), FENCE);
        assertThat(made).hasSize(2);
        assertThat(made.get(1).transactionInitialized()).isTrue();
        assertThat(made.get(1).history()).extracting(ProducerRecord::key).containsExactly("s1/4/c2");
    }

    @Test
    void aRecordTheBrokerRefuses_abortsItsTransaction_andSaysWhy_keepingTheProducer() {
        transactions.write(started("s1/3/c1"), FENCE);
        var producer = made.get(0);
        refuseTimestamps = true;

        assertThatThrownBy(() -> transactions.write(started("s1/4/c2"), FENCE)).isInstanceOf(AckedWriter.TimestampRefusedException.class);
        assertThat(producer.transactionAborted()).isTrue();
        assertThat(producer.consumerGroupOffsetsHistory()).as("no offset committed with it").hasSize(1);
        refuseTimestamps = false;
        transactions.write(started("s1/5/c3"), FENCE);
        assertThat(made).hasSize(1);
    }

    @Test
    void closing_closesEveryProducerMade() {
        transactions.write(started("s1/3/c1"), FENCE);
        transactions.close();
        assertThat(made).allMatch(MockProducer::closed);
    }

    private static ProducerRecord<String, SpecificRecord> started(String key) {
        ToolOutcome outcome = ToolOutcome.newBuilder().setIdempotencyKey(key).setSessionId("s1").setTenantId("acme").setCallId("c")
                .setTool("run_command").setState(OutcomeState.STARTED).setAttempt(1).setExecutorId("executor-a")
                .setStartedAt(Instant.parse("2026-12-07T10:00:00Z")).build();
        return new ProducerRecord<>("tool-outcomes", key, outcome);
    }
}
