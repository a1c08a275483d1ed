package dev.tether.kit.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.core.blob.BlobRef;
import dev.tether.core.blob.LocalBlobStore;
import dev.tether.core.id.StoreKey;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NominatingBlobStoreTest {

    private static final String TOPIC = "blob-references";
    private static final int PARTITIONS = 6;

    @TempDir
    Path dir;

    @Test
    void eachPut_nominatesItsBlob_withATombstoneOfNoSessionsKey_onTheBlobsPartition() {
        var producer = producer(true);
        try (var store = new NominatingBlobStore(new LocalBlobStore(dir), producer, TOPIC)) {
            BlobRef ref = store.put("acme", "a long message".getBytes(UTF_8));

            assertThat(store.open("acme", ref.sha256())).as("stored as by the store it wraps").isPresent();
            assertThat(producer.history()).singleElement().satisfies(record -> {
                assertThat(record.topic()).isEqualTo(TOPIC);
                assertThat(record.key()).isEqualTo(StoreKey.of("acme", ref.sha256(), ""));
                assertThat(record.value()).as("a tombstone: no session's reference").isNull();
                assertThat(record.partition()).as("where every session's reference to the blob goes")
                        .isEqualTo(BlobReferences.partition(BlobReferences.key("acme", ref.sha256(), "some-session"), PARTITIONS));
            });
        }
    }

    @Test
    void aNominationThatCannotBeSent_leavesThePutAsItWas() {
        var producer = producer(false);
        try (var store = new NominatingBlobStore(new LocalBlobStore(dir), producer, TOPIC)) {
            BlobRef ref = store.put("acme", "a long message".getBytes(UTF_8));
            producer.errorNext(new RuntimeException("the broker is away"));

            assertThat(store.open("acme", ref.sha256())).isPresent();
        }
    }

    @Test
    void aBlobsKeys_allGoToOnePartition_whateverTheSession() {
        String sha = "a".repeat(64);
        var partitions = IntStream.range(0, 50).map(i -> BlobReferences.partition(BlobReferences.key("acme", sha, "session-" + i), 12))
                .distinct().toArray();
        assertThat(partitions).hasSize(1);
        assertThat(BlobReferences.partition(BlobReferences.nomination("acme", sha), 12)).isEqualTo(partitions[0]);
    }

    private static MockProducer<String, byte[]> producer(boolean autoComplete) {
        var node = new Node(0, "localhost", 9092);
        List<PartitionInfo> infos = IntStream.range(0, PARTITIONS)
                .mapToObj(p -> new PartitionInfo(TOPIC, p, node, new Node[] {node}, new Node[] {node})).toList();
        var cluster = new Cluster("test", List.of(node), infos, java.util.Set.of(), java.util.Set.of());
        return new MockProducer<>(cluster, autoComplete, null, new StringSerializer(), new ByteArraySerializer());
    }
}
