package dev.tether.kit.kafka;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.Options;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RocksDB options of every persistent store of Tether's Kafka Streams services
 * ({@code kafka-streams.rocksdb.config.setter}): RocksDB's flushes and compactions write their files with direct I/O
 * when the state directory's file system takes it, instead of through the page cache.
 *
 * <p>Why: those background writes are most of what a store costs. In the benchmark's projection catch-up (figure 4,
 * bench/README.md "Where the time goes", Projection) RocksDB's threads used about as much CPU as the stream thread, and
 * most of theirs was the kernel copying each file's bytes into the page cache (about 3 KB written per event: the flush,
 * then the compactions' rewrites). With direct I/O the bytes go from RocksDB's own aligned buffers to the disk, and
 * compactions read their inputs the same way. A store's own reads (gets and range scans, a context read's) still go
 * through the page cache and RocksDB's block cache.
 *
 * <p>Not every file system takes direct I/O (tmpfs did not before Linux 6.6): on one that does not, RocksDB's first
 * flush would fail and take the store with it. So the state directory is tried once per directory and process — a
 * file opened with {@code O_DIRECT} and one block written — and direct I/O is used only if that works; either way it
 * is logged once. The environment variable {@code TETHER_STORES_DIRECT_IO=false} turns it off (an environment variable, because
 * Kafka Streams creates this class itself, and a {@code tether.*} property unknown to the service's configuration would
 * fail its start).
 */
public final class RocksDbOptions implements RocksDBConfigSetter {

    private static final Logger LOG = LoggerFactory.getLogger(RocksDbOptions.class);

    /** Whether each state directory tried takes direct I/O. */
    private static final Map<Path, Boolean> DIRECT_IO = new ConcurrentHashMap<>();

    private final boolean enabled;

    /** As Kafka Streams creates it: direct I/O unless {@code TETHER_STORES_DIRECT_IO} is {@code false}. */
    public RocksDbOptions() {
        this(!"false".equalsIgnoreCase(String.valueOf(System.getenv("TETHER_STORES_DIRECT_IO")).trim()));
    }

    RocksDbOptions(boolean enabled) {
        this.enabled = enabled;
    }

    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
        Object stateDir = configs.get(StreamsConfig.STATE_DIR_CONFIG);
        if (enabled && stateDir != null && directIo(Path.of(stateDir.toString()))) {
            options.setUseDirectIoForFlushAndCompaction(true);
        }
    }

    @Override
    public void close(String storeName, Options options) {
        // nothing of ours to close
    }

    /** Whether files in {@code stateDir} can be written with direct I/O; tried once per directory. */
    static boolean directIo(Path stateDir) {
        return DIRECT_IO.computeIfAbsent(stateDir.toAbsolutePath().normalize(), dir -> {
            try {
                writeOneBlockDirectly(dir);
                LOG.info("RocksDB's flushes and compactions in {} use direct I/O", dir);
                return true;
            } catch (IOException | UnsupportedOperationException e) {
                LOG.info("RocksDB's flushes and compactions in {} go through the page cache: its file system does not take"
                        + " direct I/O ({})", dir, e.toString());
                return false;
            }
        });
    }

    /** Creates a file in {@code dir}, writes one block to it with {@code O_DIRECT}, and deletes it. */
    static void writeOneBlockDirectly(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path probe = Files.createTempFile(dir, ".direct-io-", ".probe");
        try {
            int block = Math.toIntExact(Files.getFileStore(probe).getBlockSize());
            ByteBuffer buffer = ByteBuffer.allocateDirect(2 * block).alignedSlice(block);
            buffer.limit(block);
            try (FileChannel channel = FileChannel.open(probe, StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT)) {
                channel.write(buffer, 0);
            }
        } finally {
            Files.deleteIfExists(probe);
        }
    }
}
