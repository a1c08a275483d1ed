package dev.tether.approval.kafka;

import dev.tether.kit.kafka.StoreGoldenFiles;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The approval-service's session states as every version of their format wrote them: the golden files under
 * {@code src/test/resources/golden/approval-sessions/} ({@code v0-*}: written by the releases before store formats had
 * versions) read back as the samples, and each version writes the samples as its files ({@link StoreGoldenFiles}).
 */
class StoreGoldenTest {

    @Test
    void sessions_readAndWriteAsTheGoldenFilesOfEveryVersion() {
        StoreGoldenFiles.check(ApprovalStoreFormats.SESSIONS, Path.of("src/test/resources/golden", ApprovalStores.SESSIONS),
                Map.of("full", StoreSamples.full(), "minimal", StoreSamples.started()));
    }
}
