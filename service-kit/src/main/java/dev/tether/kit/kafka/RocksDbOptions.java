package dev.tether.kit.kafka;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.WriteBufferManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RocksDB options of every persistent store of Tether's Kafka Streams services
 * ({@code kafka-streams.rocksdb.config.setter}): the stores of a process share one bounded memory budget, and RocksDB's
 * flushes and compactions write their files with direct I/O when the state directory's file system takes it, instead
 * of through the page cache.
 *
 * <p><b>Memory.</b> By Kafka Streams' defaults every store has its own block cache (50 MB) and up to three memtables of
 * 16 MB, outside the JVM's heap and bounded by nothing: an instance holds several stores for each of its tasks,
 * standbys included, so the more partitions it holds the more it may take, until its container is killed for it. Here
 * every store of the process shares one LRU block cache of {@code TETHER_STORES_MEMORY_MB} (512 by default), and its
 * memtables are counted in the same cache (a write buffer manager), up to half of it: past that RocksDB flushes them.
 * Index and filter blocks stay outside it, in each table's reader, as by default: they take memory in proportion to
 * the data a store holds (a bloom filter's bits per key), not to its traffic, and counted in the cache they made the
 * benchmark's warm catch-up (figure 4) about a quarter slower (62,000-65,000 events/s against 83,000-89,000 without).
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
 * is logged once. The environment variable {@code TETHER_STORES_DIRECT_IO=false} turns it off (environment variables, because
 * Kafka Streams creates this class itself, and a {@code tether.*} property unknown to the service's configuration would
 * fail its start).
 */
public final class RocksDbOptions implements RocksDBConfigSetter {

    private static final Logger LOG = LoggerFactory.getLogger(RocksDbOptions.class);

    /** Whether each state directory tried takes direct I/O. */
    private static final Map<Path, Boolean> DIRECT_IO = new ConcurrentHashMap<>();

    /** The environment variable that sets the stores' shared memory, in MiB. */
    public static final String MEMORY_VARIABLE = "TETHER_STORES_MEMORY_MB";

    /** The environment variable that turns direct I/O off ({@code false}). */
    public static final String DIRECT_IO_VARIABLE = "TETHER_STORES_DIRECT_IO";

    /** The environment variables this class reads (not through the service's configuration: Kafka Streams creates it). */
    public static final List<String> VARIABLES = List.of(MEMORY_VARIABLE, DIRECT_IO_VARIABLE);

    /** The stores' shared memory when {@value #MEMORY_VARIABLE} is not set: 512 MiB. */
    static final long DEFAULT_MEMORY_MB = 512;

    /** The share of the block cache every store's memtables may take together, before RocksDB flushes them. */
    static final double MEMTABLE_SHARE = 0.5;

    /** The shared cache and write buffer manager of each budget asked for; never closed: they live as long as the process. */
    private static final Map<Long, SharedMemory> SHARED = new ConcurrentHashMap<>();

    /** One budget: the block cache every store of the process uses, and the manager that counts their memtables in it. */
    record SharedMemory(Cache cache, WriteBufferManager writeBuffers) {}

    private final boolean directIo;
    private final long memoryBytes;

    /**
     * As Kafka Streams creates it: direct I/O unless {@code TETHER_STORES_DIRECT_IO} is {@code false}, and the memory
     * {@value #MEMORY_VARIABLE} says.
     *
     * @throws IllegalArgumentException when {@value #MEMORY_VARIABLE} is not a whole number of MiB from 16 on
     */
    public RocksDbOptions() {
        this(!"false".equalsIgnoreCase(String.valueOf(System.getenv(DIRECT_IO_VARIABLE)).trim()),
                memoryBytes(System.getenv(MEMORY_VARIABLE)));
    }

    RocksDbOptions(boolean directIo, long memoryBytes) {
        this.directIo = directIo;
        this.memoryBytes = memoryBytes;
    }

    /**
     * The stores' shared memory in bytes, from the value of {@value #MEMORY_VARIABLE} (MiB; null or blank: the default).
     * The services call it at start-up, so that a bad value stops the start rather than a store.
     *
     * @throws IllegalArgumentException naming the variable when the value is not a whole number of MiB from 16 on
     */
    public static long memoryBytes(String mebibytes) {
        if (mebibytes == null || mebibytes.isBlank()) {
            return DEFAULT_MEMORY_MB << 20;
        }
        long mb;
        try {
            mb = Long.parseLong(mebibytes.strip());
        } catch (NumberFormatException e) {
            mb = -1;
        }
        if (mb < 16 || mb > (Long.MAX_VALUE >> 20)) {
            throw new IllegalArgumentException(MEMORY_VARIABLE + ": the memory all RocksDB stores share, in MiB, must be a whole number"
                    + " from 16 on, not '" + mebibytes + "'");
        }
        return mb << 20;
    }

    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
        SharedMemory memory = SHARED.computeIfAbsent(memoryBytes, RocksDbOptions::budget);
        BlockBasedTableConfig table = options.tableFormatConfig() instanceof BlockBasedTableConfig given ? given : new BlockBasedTableConfig();
        table.setBlockCache(memory.cache());
        options.setTableFormatConfig(table);
        options.setWriteBufferManager(memory.writeBuffers());

        Object stateDir = configs.get(StreamsConfig.STATE_DIR_CONFIG);
        if (directIo && stateDir != null && directIo(Path.of(stateDir.toString()))) {
            options.setUseDirectIoForFlushAndCompaction(true);
        }
    }

    private static SharedMemory budget(long bytes) {
        // no strict limit: a read that needs a block past the budget gets it rather than an error (the tenth kept for
        // high-priority blocks stays free: index and filter blocks are not put in the cache)
        var cache = new LRUCache(bytes, -1, false, 0.1);
        LOG.info("RocksDB's stores share {} MiB: one block cache, their memtables counted in it up to {} MiB", bytes >> 20,
                (long) (bytes * MEMTABLE_SHARE) >> 20);
        return new SharedMemory(cache, new WriteBufferManager((long) (bytes * MEMTABLE_SHARE), cache));
    }

    /** How much of the shared cache of budget {@code bytes} is in use (blocks and memtables), 0 before any store took it. */
    static long sharedCacheUsage(long bytes) {
        SharedMemory memory = SHARED.get(bytes);
        return memory == null ? 0 : memory.cache().getUsage();
    }

    @Override
    public void close(String storeName, Options options) {
        // the shared cache and write buffer manager outlive every store: not closed here
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
