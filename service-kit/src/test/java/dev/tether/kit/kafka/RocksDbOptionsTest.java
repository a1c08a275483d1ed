package dev.tether.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

/**
 * {@link RocksDbOptions}: every store of the process in one bounded memory budget, and direct I/O for flushes and compactions
 * only where the state directory's file system takes it.
 */
class RocksDbOptionsTest {

    static {
        RocksDB.loadLibrary();
    }

    @TempDir
    Path onDisk;

    @Test
    void givenAStateDirThatTakesDirectIo_thenFlushesAndCompactionsUseIt_andTheTrialLeavesNothingBehind() throws IOException {
        assumeTrue(takesDirectIo(onDisk), "the build's temp directory is on a file system that takes direct I/O");

        assertThat(directIoFor(onDisk)).isTrue();
        try (var left = Files.list(onDisk)) {
            assertThat(left).as("the trial's file is deleted").isEmpty();
        }
    }

    @Test
    void givenAStateDirWhereTheTrialWriteFails_thenThePageCacheAsBefore() throws IOException {
        // a file system that refuses O_DIRECT fails the trial the same way (tmpfs did before Linux 6.6)
        Path notADirectory = Files.createFile(onDisk.resolve("a-file"));
        Path stateDir = notADirectory.resolve("state");

        assertThat(takesDirectIo(stateDir)).isFalse();
        assertThat(directIoFor(stateDir)).isFalse();
    }

    @Test
    void givenDirectIoTurnedOff_thenThePageCacheEvenWhereItIsTaken() {
        try (var options = new Options()) {
            new RocksDbOptions(false, RocksDbOptions.memoryBytes(null)).setConfig("store", options, Map.of(StreamsConfig.STATE_DIR_CONFIG, onDisk.toString()));
            assertThat(options.useDirectIoForFlushAndCompaction()).isFalse();
        }
    }

    @Test
    void givenNoStateDirInTheConfigs_thenNothingChanges() {
        try (var options = new Options()) {
            new RocksDbOptions().setConfig("store", options, Map.of());
            assertThat(options.useDirectIoForFlushAndCompaction()).isFalse();
        }
    }

    @Test
    void everyStore_sharesOneWriteBufferManager_andOneBlockCache() {
        try (var a = new Options(); var b = new Options()) {
            b.setTableFormatConfig(new BlockBasedTableConfig()); // as Kafka Streams hands its options in
            var setter = new RocksDbOptions(false, 64L << 20);
            setter.setConfig("a", a, Map.of());
            new RocksDbOptions(false, 64L << 20).setConfig("b", b, Map.of());

            assertThat(a.writeBufferManager()).isNotNull().isSameAs(b.writeBufferManager());
            assertThat(a.tableFormatConfig()).isInstanceOf(BlockBasedTableConfig.class);
            assertThat(b.tableFormatConfig()).isInstanceOf(BlockBasedTableConfig.class);
        }
    }

    @Test
    void aStoreWithTheseOptions_chargesItsMemtableToTheSharedBudget() throws Exception {
        long budget = 32L << 20;
        try (var options = new Options().setCreateIfMissing(true)) {
            new RocksDbOptions(false, budget).setConfig("store", options, Map.of());
            try (var db = RocksDB.open(options, onDisk.resolve("db").toString())) {
                byte[] value = new byte[1024];
                for (int i = 0; i < 2_000; i++) {
                    db.put(("key-" + i).getBytes(), value);
                }
                assertThat(db.get("key-1999".getBytes())).isEqualTo(value);
                // the memtable is charged to the cache in blocks of 1 MiB or so: ~2 MB written shows in it
                assertThat(RocksDbOptions.sharedCacheUsage(budget)).isGreaterThanOrEqualTo(1L << 20).isLessThanOrEqualTo(budget);
            }
        }
    }

    @Test
    void theBudget_isReadInMiB_512ByDefault_andAnythingElseIsRefusedNamingTheVariable() {
        assertThat(RocksDbOptions.memoryBytes(null)).isEqualTo(512L << 20);
        assertThat(RocksDbOptions.memoryBytes(" ")).isEqualTo(512L << 20);
        assertThat(RocksDbOptions.memoryBytes("512")).isEqualTo(512L << 20);
        for (String bad : new String[] {"8", "0", "-1", "256Mi", "lots", "99999999999999999999"}) {
            assertThatThrownBy(() -> RocksDbOptions.memoryBytes(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("TETHER_STORES_MEMORY_MB").hasMessageContaining("'" + bad + "'");
        }
    }

    /** Whether {@link RocksDbOptions}, as Kafka Streams creates it, gives a store in {@code stateDir} direct I/O. */
    private static boolean directIoFor(Path stateDir) {
        try (var options = new Options()) {
            new RocksDbOptions().setConfig("store", options, Map.of(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString()));
            return options.useDirectIoForFlushAndCompaction();
        }
    }

    private static boolean takesDirectIo(Path dir) {
        try {
            RocksDbOptions.writeOneBlockDirectly(dir);
            return true;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }
}
