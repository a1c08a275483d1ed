package dev.tether.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TreesTest {

    @TempDir
    Path temp;

    @Test
    void deletesTheWholeTree_andNothingWhenItIsGone() throws IOException {
        Path dir = tree(temp.resolve("t"), 3, 4);
        Trees.delete(dir);
        assertThat(dir).doesNotExist();
        assertThatCode(() -> Trees.delete(dir)).doesNotThrowAnyException();
    }

    /** As a process still writing its log while it stops: a directory that fills again is tried again. */
    @Test
    void aDirectoryFilledAgainWhileItIsDeleted_isTriedAgain() throws Exception {
        Path dir = tree(temp.resolve("w"), 2, 100);
        long until = System.nanoTime() + 300_000_000L;
        var writer = CompletableFuture.runAsync(() -> {
            for (int n = 0; System.nanoTime() < until; n++) {
                try {
                    Files.writeString(dir.resolve("d0").resolve("late" + n), "x");
                } catch (IOException gone) {
                    // the directory is gone, for now
                }
            }
        });
        try {
            Thread.sleep(20);
            assertThatCode(() -> Trees.delete(dir)).doesNotThrowAnyException();
        } finally {
            writer.join(); // before the temp dir's own clean-up, even when this failed
        }
        assertThat(dir).doesNotExist();
    }

    private static Path tree(Path root, int dirs, int filesEach) throws IOException {
        for (int d = 0; d < dirs; d++) {
            Path sub = Files.createDirectories(root.resolve("d" + d));
            for (int f = 0; f < filesEach; f++) {
                Files.writeString(sub.resolve("f" + f), "x");
            }
        }
        return root;
    }
}
