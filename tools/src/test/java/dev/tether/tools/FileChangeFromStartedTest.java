package dev.tether.tools;

import static dev.tether.tools.Testbed.args;
import static dev.tether.tools.Testbed.sha256;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file tool run as the executor runs it, with the intent its STARTED recorded: the change is made to that content
 * only, so a call run twice (an instance that resumed after its partition moved on, beside the one that took the call
 * over) changes the file once.
 */
class FileChangeFromStartedTest {

    @TempDir
    Path temp;

    private Testbed bed;

    @BeforeEach
    void setUp() {
        bed = new Testbed(temp);
    }

    @Test
    void appliesTheChange_toTheContentItsIntentWasWorkedOutFrom() throws Exception {
        var tool = new EditFileTool();
        JsonNode arguments = args("path", "f.txt", "old", "a", "new", "ab");
        bed.write("f.txt", "a\n");
        Intent started = tool.intent(bed.context(), arguments);

        ToolOutput output = tool.execute(bed.context(), arguments, started);

        assertThat(bed.read("f.txt")).isEqualTo("ab\n");
        assertThat(output.status()).isEqualTo(ToolOutput.Status.OK);
        assertThat(new Intent(output.beforeHash(), output.afterHash())).isEqualTo(started);
    }

    @Test
    void anEditRunASecondTime_afterTheFirstRunWroteIt_writesNothing_andSaysSo() throws Exception {
        var tool = new EditFileTool();
        // "a" occurs once again after the edit: run again on what the first run left, it would make "abb"
        JsonNode arguments = args("path", "f.txt", "old", "a", "new", "ab");
        Path file = bed.write("f.txt", "a\n");
        Intent started = tool.intent(bed.context(), arguments);
        tool.execute(bed.context(), arguments, started); // the instance that took the call over
        FileTime written = FileTime.from(Instant.parse("2020-01-01T00:00:00Z"));
        Files.setLastModifiedTime(file, written);
        Object inode = Files.getAttribute(file, "unix:ino");

        ToolOutput second = tool.execute(bed.context(), arguments, started); // the one that resumed

        assertThat(bed.read("f.txt")).isEqualTo("ab\n");
        assertThat(Files.getLastModifiedTime(file)).isEqualTo(written);
        assertThat(Files.getAttribute(file, "unix:ino")).isEqualTo(inode);
        assertThat(second.status()).isEqualTo(ToolOutput.Status.OK);
        assertThat(second.content()).isEqualTo("edit_file: f.txt already has the content this call writes (sha256 "
                + sha256("ab\n") + "): an earlier run of the call wrote it; nothing changed\n");
        assertThat(new Intent(second.beforeHash(), second.afterHash())).isEqualTo(started);
    }

    @Test
    void aCallWhoseFileChangedSinceItStarted_fails_writingNothing() throws Exception {
        var tool = new WriteFileTool();
        JsonNode arguments = args("path", "f.txt", "content", "the call's\n");
        bed.write("f.txt", "before\n");
        Intent started = tool.intent(bed.context(), arguments);
        bed.write("f.txt", "the session's next edit\n");

        ToolException thrown = catchThrowableOfType(() -> tool.execute(bed.context(), arguments, started),
                ToolException.class);

        assertThat(thrown.kind()).isEqualTo(ToolException.Kind.FAILED);
        assertThat(thrown.getMessage()).isEqualTo("write_file: f.txt changed since the call started: it has sha256 "
                + sha256("the session's next edit\n") + ", not the " + sha256("before\n")
                + " the change was worked out from; nothing written");
        assertThat(bed.read("f.txt")).isEqualTo("the session's next edit\n");
    }

    @Test
    void aFileTheCallCreated_changedSince_isNotWrittenAgain() throws Exception {
        var tool = new WriteFileTool();
        JsonNode arguments = args("path", "new.txt", "content", "x\n");
        Intent started = tool.intent(bed.context(), arguments);
        assertThat(started.beforeHash()).isEqualTo(FileHash.ABSENT);
        tool.execute(bed.context(), arguments, started);
        bed.write("new.txt", "changed\n");

        ToolException thrown = catchThrowableOfType(() -> tool.execute(bed.context(), arguments, started),
                ToolException.class);

        assertThat(thrown.getMessage()).contains("it has sha256 " + sha256("changed\n") + ", not the (absent)");
        assertThat(bed.read("new.txt")).isEqualTo("changed\n");
    }

    @Test
    void anIntentWithoutHashes_runsTheCallOnTheFileAsItIs() throws Exception {
        var tool = new EditFileTool();
        JsonNode arguments = args("path", "f.txt", "old", "a", "new", "ab");
        bed.write("f.txt", "a\n");

        tool.execute(bed.context(), arguments, Intent.NONE);

        assertThat(bed.read("f.txt")).isEqualTo("ab\n");
    }
}
