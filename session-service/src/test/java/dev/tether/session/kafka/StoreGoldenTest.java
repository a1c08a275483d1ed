package dev.tether.session.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.kit.kafka.JsonSerde;
import dev.tether.session.domain.SessionHead;
import dev.tether.session.domain.SessionSummary;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The sequencer's store values as this release writes them (before store formats had versions): the golden files
 * under {@code src/test/resources/golden/} read back as the samples, and the samples are written as the files.
 * A missing file is written from today's code and the test fails, so that it is reviewed and committed.
 */
class StoreGoldenTest {

    private static final Path GOLDEN = Path.of("src/test/resources/golden");

    @Test
    void heads_readAndWriteAsTheGoldenFiles() throws Exception {
        check(JsonSerde.of(SessionHead.class), StoreNames.HEADS, "unversioned-full.json", StoreSamples.fullHead());
        check(JsonSerde.of(SessionHead.class), StoreNames.HEADS, "unversioned-minimal.json", StoreSamples.minimalHead());
    }

    @Test
    void summaries_readAndWriteAsTheGoldenFiles() throws Exception {
        check(JsonSerde.of(SessionSummary.class), StoreNames.SESSIONS_BY_TENANT, "unversioned-full.json", StoreSamples.fullSummary());
        check(JsonSerde.of(SessionSummary.class), StoreNames.SESSIONS_BY_TENANT, "unversioned-minimal.json", StoreSamples.minimalSummary());
    }

    private static <T> void check(JsonSerde<T> serde, String store, String name, T expected) throws Exception {
        Path file = GOLDEN.resolve(store).resolve(name);
        if (!Files.exists(file)) {
            Files.createDirectories(file.getParent());
            Files.write(file, serde.serialize(store, expected));
            throw new AssertionError("wrote " + file + " from today's code; review it and run again");
        }
        byte[] golden = Files.readAllBytes(file);
        assertThat(serde.deserialize(store, golden)).as(file.toString()).isEqualTo(expected);
        assertThat(new String(serde.serialize(store, expected), StandardCharsets.UTF_8)).as(file.toString())
                .isEqualTo(new String(golden, StandardCharsets.UTF_8));
    }
}
