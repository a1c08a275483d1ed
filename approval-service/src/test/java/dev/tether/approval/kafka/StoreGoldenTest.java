package dev.tether.approval.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.approval.domain.SessionApprovals;
import dev.tether.kit.kafka.JsonSerde;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The approval-service's session store values as this release writes them (before store formats had versions): the
 * golden files under {@code src/test/resources/golden/} read back as the samples, and the samples are written as the
 * files. A missing file is written from today's code and the test fails, so that it is reviewed and committed.
 */
class StoreGoldenTest {

    private static final Path GOLDEN = Path.of("src/test/resources/golden", ApprovalStores.SESSIONS);

    @Test
    void sessions_readAndWriteAsTheGoldenFiles() throws Exception {
        check("unversioned-full.json", StoreSamples.full());
        check("unversioned-minimal.json", StoreSamples.started());
    }

    private static void check(String name, SessionApprovals expected) throws Exception {
        JsonSerde<SessionApprovals> serde = JsonSerde.of(SessionApprovals.class);
        Path file = GOLDEN.resolve(name);
        if (!Files.exists(file)) {
            Files.createDirectories(file.getParent());
            Files.write(file, serde.serialize(ApprovalStores.SESSIONS, expected));
            throw new AssertionError("wrote " + file + " from today's code; review it and run again");
        }
        byte[] golden = Files.readAllBytes(file);
        assertThat(serde.deserialize(ApprovalStores.SESSIONS, golden)).as(file.toString()).isEqualTo(expected);
        assertThat(new String(serde.serialize(ApprovalStores.SESSIONS, expected), StandardCharsets.UTF_8)).as(file.toString())
                .isEqualTo(new String(golden, StandardCharsets.UTF_8));
    }
}
