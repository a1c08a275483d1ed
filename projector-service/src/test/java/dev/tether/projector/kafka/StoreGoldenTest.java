package dev.tether.projector.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.kit.kafka.JsonSerde;
import dev.tether.projector.domain.CallRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The projector's call store values as this release writes them (before store formats had versions): the golden
 * files under {@code src/test/resources/golden/} read back as the samples, and the samples are written as the files.
 * A missing file is written from today's code and the test fails, so that it is reviewed and committed.
 */
class StoreGoldenTest {

    private static final Path GOLDEN = Path.of("src/test/resources/golden", ProjectorStores.CALLS);

    @Test
    void callRecords_readAndWriteAsTheGoldenFiles() throws Exception {
        check("unversioned-full.json", StoreSamples.full());
        check("unversioned-minimal.json", StoreSamples.requested());
    }

    private static void check(String name, CallRecord expected) throws Exception {
        JsonSerde<CallRecord> serde = JsonSerde.of(CallRecord.class);
        Path file = GOLDEN.resolve(name);
        if (!Files.exists(file)) {
            Files.createDirectories(file.getParent());
            Files.write(file, serde.serialize(ProjectorStores.CALLS, expected));
            throw new AssertionError("wrote " + file + " from today's code; review it and run again");
        }
        byte[] golden = Files.readAllBytes(file);
        assertThat(serde.deserialize(ProjectorStores.CALLS, golden)).as(file.toString()).isEqualTo(expected);
        assertThat(new String(serde.serialize(ProjectorStores.CALLS, expected), StandardCharsets.UTF_8)).as(file.toString())
                .isEqualTo(new String(golden, StandardCharsets.UTF_8));
    }
}
