package dev.tether.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

/** {@link RocksDbOptions}: direct I/O for flushes and compactions only where the state directory's file system takes it. */
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
            new RocksDbOptions(false).setConfig("store", options, Map.of(StreamsConfig.STATE_DIR_CONFIG, onDisk.toString()));
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
