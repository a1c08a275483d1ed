package dev.tether.executor.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What the executor hides from its commands: its blob store and application always, and what is configured. */
class HiddenFromCommandsTest {

    @Test
    void theBlobStoreAndTheApplication_areAlwaysHidden_besideTheConfiguredDirectories() {
        assertThat(Executor.hiddenFromCommands("/var/lib/tether/blobs", Optional.of(List.of("/run/secrets", "/var/lib/tether/blobs/")),
                Optional.of(Path.of("/deployments"))))
                .containsExactly(Path.of("/var/lib/tether/blobs"), Path.of("/deployments"), Path.of("/run/secrets"));
        assertThat(Executor.hiddenFromCommands("blobs", Optional.empty(), Optional.empty()))
                .containsExactly(Path.of("blobs").toAbsolutePath());
    }

    @Test
    void theApplicationDirectory_isNone_forCompiledClassesWithNoQuarkusRunJarAboveThem() {
        assertThat(Executor.applicationDirectory()).isEmpty();
    }
}
