package dev.tether.kit.service.rest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.internals.StreamsMetadataImpl;
import org.junit.jupiter.api.Test;

class OwnerRoutingTest {

    private static StreamsMetadata instance(int port, TopicPartition... partitions) {
        return new StreamsMetadataImpl(new HostInfo("127.0.0.1", port), Set.of("store"), Set.of(partitions), Set.of(), Set.of());
    }

    @Test
    void noPartitionIsUnowned_whenTheInstancesTogetherHoldEveryOne() {
        var a = instance(1, new TopicPartition("events", 0), new TopicPartition("commands", 0), new TopicPartition("events", 2));
        var b = instance(2, new TopicPartition("events", 1), new TopicPartition("events", 3));

        assertThat(OwnerRouting.unowned(List.of(a, b), 4)).isEmpty();
    }

    @Test
    void namesThePartitionsNobodyHolds_duringARebalance() {
        var a = instance(1, new TopicPartition("events", 0));
        var b = instance(2, new TopicPartition("events", 3));

        assertThat(OwnerRouting.unowned(List.of(a, b), 4)).containsExactly(1, 2);
        assertThat(OwnerRouting.unowned(List.of(), 2)).containsExactly(0, 1);
    }
}
