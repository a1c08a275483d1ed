package dev.tether.cli.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.tether.cli.CliException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The replay's read of a topic, on a {@link MockConsumer}: no broker. */
class TopicScanTest {

    private static final String TOPIC = "session-events";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);
    private static final TopicPartition P2 = new TopicPartition(TOPIC, 2);

    private final MockConsumer<String, String> consumer = new MockConsumer<>("earliest");

    @Test
    void everyRecordUpToTheEndOffsetsAtTheStart_isHandedOnce_inOffsetOrderPerPartition_emptyAndCompactedPartitionsIncluded() {
        TopicScan<String, String> scan = scan(Map.of(P0, 0L, P1, 0L, P2, 5L), Map.of(P0, 3L, P1, 0L, P2, 8L), Duration.ofSeconds(5));
        record(P0, 0, "a1");
        record(P0, 1, null); // a tombstone
        record(P0, 2, "a3");
        record(P2, 5, "c5");
        record(P2, 7, "c7"); // offset 6 compacted away
        record(P2, 8, "written after the scan began");

        var seen = new ArrayList<String>();
        long read = assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> scan.forEach(r -> seen.add(r.partition() + "@" + r.offset() + "=" + r.value()), fraction -> { }));

        assertThat(read).isEqualTo(5);
        assertThat(seen).hasSize(5); // in offset order per partition; partitions interleave as they come
        assertThat(seen).filteredOn(s -> s.startsWith("0@")).containsExactly("0@0=a1", "0@1=null", "0@2=a3");
        assertThat(seen).filteredOn(s -> s.startsWith("2@")).containsExactly("2@5=c5", "2@7=c7");
    }

    @Test
    void aScanThatGetsNoFurther_failsAfterTheTimeout_namingWherePartitionsStopped_insteadOfWaitingForEver() {
        TopicScan<String, String> scan = scan(Map.of(P0, 0L, P1, 0L), Map.of(P0, 2L, P1, 4L), Duration.ofMillis(300));
        record(P0, 0, "a1");
        record(P0, 1, "a2");
        record(P1, 0, "b1"); // then nothing more comes: the broker went away

        var seen = new ArrayList<String>();
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThatThrownBy(() -> scan.forEach(r -> seen.add(r.value()), f -> { }))
                .isInstanceOf(CliException.class)
                .hasMessage("reading session-events got no further for 300 ms: partition 1 at offset 1 of 4 "
                        + "(is Kafka still running? see --bootstrap and --timeout)"));
        assertThat(seen).containsExactly("a1", "a2", "b1");
    }

    @Test
    void aStuckPartition_isNotHiddenByRecordsWrittenAfterTheScanBeganToAnother() {
        TopicScan<String, String> scan = scan(Map.of(P0, 0L, P1, 0L), Map.of(P0, 2L, P1, 0L), Duration.ofMillis(300));
        record(P0, 0, "a1"); // offset 1 never comes
        long[] written = {0};
        consumer.schedulePollTask(new Runnable() { // a writer goes on appending to partition 1, empty when the scan began
            @Override
            public void run() {
                record(P1, written[0]++, "later");
                sleep();
                consumer.schedulePollTask(this);
            }
        });

        var seen = new ArrayList<String>();
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThatThrownBy(() -> scan.forEach(r -> seen.add(r.value()), f -> { }))
                .hasMessageStartingWith("reading session-events got no further for 300 ms: partition 0 at offset 1 of 2 "));
        assertThat(seen).containsExactly("a1");
    }

    @Test
    void aMissingTopic_isReportedWithoutCreatingIt() {
        assertThatThrownBy(() -> new TopicScan<>(consumer, "typo.session-events", Duration.ofSeconds(1)))
                .isInstanceOf(CliException.class)
                .hasMessageStartingWith("topic typo.session-events does not exist (check --topics-prefix");
    }

    private TopicScan<String, String> scan(Map<TopicPartition, Long> begins, Map<TopicPartition, Long> ends, Duration timeout) {
        var infos = new ArrayList<PartitionInfo>();
        begins.keySet().forEach(p -> infos.add(new PartitionInfo(TOPIC, p.partition(), Node.noNode(), new Node[0], new Node[0])));
        consumer.updatePartitions(TOPIC, List.copyOf(infos));
        consumer.updateBeginningOffsets(begins);
        consumer.updateEndOffsets(ends);
        return new TopicScan<>(consumer, TOPIC, timeout);
    }

    private static void sleep() {
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void record(TopicPartition p, long offset, String value) {
        consumer.addRecord(new ConsumerRecord<>(TOPIC, p.partition(), offset, "k", value));
    }
}
