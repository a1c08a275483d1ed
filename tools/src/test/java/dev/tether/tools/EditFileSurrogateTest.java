package dev.tether.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * JSON lets a string hold an unpaired surrogate ({@code "\ud83d"}). edit_file matches {@code old} by UTF-16 code units, so
 * such an {@code old} matches half of a character of the file, and the other half, left unpaired, is encoded as
 * {@code ?}: a character the call never named is destroyed. write_file's content does the same to its own text.
 */
class EditFileSurrogateTest {

    @TempDir
    Path temp;

    private Testbed bed;

    @BeforeEach
    void setUp() throws Exception {
        bed = new Testbed(temp);
        bed.write("notes.txt", "mood: \uD83D\uDE00 ok\n"); // 😀
    }

    @Test
    void anOldHoldingHalfASurrogatePair_isRefused_andTheFileIsUnchanged() throws Exception {
        Throwable thrown = catchThrowable(() -> bed.run(new EditFileTool(),
                Testbed.json("{\"path\":\"notes.txt\",\"old\":\"\\ud83d\",\"new\":\"x\"}")));

        assertThat(bed.read("notes.txt")).isEqualTo("mood: \uD83D\uDE00 ok\n");
        assertThat(thrown).isInstanceOf(ToolException.class);
    }
}
