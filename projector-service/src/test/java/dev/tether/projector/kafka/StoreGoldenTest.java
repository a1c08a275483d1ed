package dev.tether.projector.kafka;

import dev.tether.kit.kafka.StoreGoldenFiles;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The projector's call records as every version of their format wrote them: the golden files under
 * {@code src/test/resources/golden/session-call-records/} ({@code v0-*}: written by the releases before store formats
 * had versions) read back as the samples, and each version writes the samples as its files ({@link StoreGoldenFiles}).
 */
class StoreGoldenTest {

    @Test
    void calls_readAndWriteAsTheGoldenFilesOfEveryVersion() {
        StoreGoldenFiles.check(ProjectorStoreFormats.CALLS, Path.of("src/test/resources/golden", ProjectorStores.CALLS),
                Map.of("full", StoreSamples.full(), "minimal", StoreSamples.requested()));
    }
}
