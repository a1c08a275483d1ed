package dev.tether.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class SessionPartitionerTest {

    private final SessionPartitioner partitioner = new SessionPartitioner();
    private final StringSerializer strings = new StringSerializer();

    @Test
    void placesEveryEventKey_whereKafkasDefaultPartitionerPlacesThePlainSessionId() {
        List<String> ids = randomSessionIds(10_000, new Random(20261129));
        for (int partitions : new int[] {1, 3, 6, 12, 50}) {
            for (String id : ids) {
                int kafkas = BuiltInPartitioner.partitionForKey(strings.serialize("session-commands", id), partitions);
                long seq = 1 + Math.floorMod(id.hashCode(), 100_000);

                assertThat(partitioner.partitions("session-events", new SessionEventKey(id, seq), null, partitions))
                        .as("session %s among %d partitions", id, partitions)
                        .contains(Set.of(kafkas));
                assertThat(SessionPartitioner.partition(id, partitions)).isEqualTo(kafkas);
            }
        }
    }

    @Test
    void acceptsPlainSessionIdKeys() {
        assertThat(partitioner.partitions("t", "s-1", null, 12))
                .contains(Set.of(BuiltInPartitioner.partitionForKey(strings.serialize("t", "s-1"), 12)));
    }

    @Test
    void placesAToolIdempotencyKey_withItsSession() {
        for (String id : randomSessionIds(1000, new Random(7))) {
            if (id.contains("/")) {
                continue;
            }
            assertThat(partitioner.partitions("tool-requests", id + "/17/call-1", null, 12))
                    .contains(Set.of(SessionPartitioner.partition(id, 12)));
        }
    }

    /** UUIDs, as the API makes them, and arbitrary Unicode names, as clients may choose them. */
    static List<String> randomSessionIds(int n, Random random) {
        var ids = new ArrayList<String>(n);
        for (int i = 0; i < n; i++) {
            if (i % 2 == 0) {
                ids.add(new UUID(random.nextLong(), random.nextLong()).toString());
            } else {
                var sb = new StringBuilder();
                int len = 1 + random.nextInt(40);
                for (int c = 0; c < len; c++) {
                    sb.appendCodePoint(random.nextInt(4) == 0 ? 0x4E00 + random.nextInt(500) : 'a' + random.nextInt(26));
                }
                ids.add(sb.toString());
            }
        }
        return ids;
    }
}
