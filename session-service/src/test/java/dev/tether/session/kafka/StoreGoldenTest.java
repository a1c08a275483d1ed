package dev.tether.session.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.kit.kafka.StoreGoldenFiles;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The sequencer's store values as every version of their formats wrote them: the golden files under
 * {@code src/test/resources/golden/<store>/} ({@code v0-*}: written by the releases before store formats had versions,
 * with their {@code JsonSerde}) read back as the samples, and each version writes the samples as its files
 * ({@link StoreGoldenFiles}).
 */
class StoreGoldenTest {

    private static final Path GOLDEN = Path.of("src/test/resources/golden");

    @Test
    void heads_readAndWriteAsTheGoldenFilesOfEveryVersion() {
        StoreGoldenFiles.check(SequencerStoreFormats.HEADS, GOLDEN.resolve(StoreNames.HEADS),
                Map.of("full", StoreSamples.fullHead(), "minimal", StoreSamples.minimalHead()),
                // versions 0 and 1 have no lastInterruptSeq: they read as never interrupted; before 4, no starts: unknown;
                // before 5, no call's asker and no last event's time: unknown
                (version, sample) -> !sample.equals("full") ? StoreSamples.minimalHead()
                        : version < 2 ? StoreSamples.fullHead(0, null, null, null, null)
                        : version < 4 ? StoreSamples.fullHead(11, null, null, null, null)
                        : version < 5 ? StoreSamples.fullHead(11, StoreSamples.fullHead().startedAt(),
                                StoreSamples.fullHead().parentStartedAt(), null, null)
                        : StoreSamples.fullHead());
    }

    @Test
    void summaries_readAndWriteAsTheGoldenFilesOfEveryVersion() {
        StoreGoldenFiles.check(SequencerStoreFormats.SUMMARIES, GOLDEN.resolve(StoreNames.SESSIONS_BY_TENANT),
                Map.of("full", StoreSamples.fullSummary(), "minimal", StoreSamples.minimalSummary()));
    }

    @Test
    void everyRecordStoreOfTheSequencer_hasAVersionedFormat() {
        assertThat(SequencerStoreFormats.all()).extracting(f -> f.store())
                .containsExactlyInAnyOrder(StoreNames.HEADS, StoreNames.SESSIONS_BY_TENANT);
    }
}
