package dev.tether.tools;

import static dev.tether.tools.Testbed.args;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.core.blob.BlobOffloader;
import dev.tether.testing.PlantedSecrets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class ReadFileToolTest {

    @TempDir
    Path temp;

    private Testbed bed;
    private final ReadFileTool tool = new ReadFileTool();

    @BeforeEach
    void setUp() {
        bed = new Testbed(temp);
    }

    @Test
    void returnsAUtf8TextFile_asItIs() throws Exception {
        bed.write("src/notes.txt", "héllo, wörld ✓\nsecond line, no newline");

        ToolOutput output = bed.run(tool, args("path", "src/notes.txt"));

        assertThat(output.status()).isEqualTo(ToolOutput.Status.OK);
        assertThat(output.content()).isEqualTo("héllo, wörld ✓\nsecond line, no newline");
        assertThat(output.artifact()).isNull();
        assertThat(output.beforeHash()).isNull();
        assertThat(output.afterHash()).isNull();
    }

    @Test
    void readsAFileThroughALinkThatStaysInside() throws Exception {
        bed.write("real.txt", "through the link\n");
        Files.createSymbolicLink(bed.root.resolve("link.txt"), Path.of("real.txt"));

        assertThat(bed.run(tool, args("path", "link.txt")).content()).isEqualTo("through the link\n");
    }

    @Test
    void cutsAtMaxBytes_andSaysHowMuchWasLeftOut() throws Exception {
        bed.write("ten.txt", "0123456789");

        ToolOutput output = bed.run(tool, args("path", "ten.txt", "maxBytes", 4));

        assertThat(output.content()).isEqualTo(
                "0123\n[read_file: showed the first 4 of 10 bytes; pass a larger maxBytes to read more]\n");
    }

    @Test
    void leavesOutACharacterCutInTwoByMaxBytes_ratherThanCallingTheFileBinary() throws Exception {
        bed.write("accent.txt", "aé"); // é is two bytes

        ToolOutput output = bed.run(tool, args("path", "accent.txt", "maxBytes", 2));

        assertThat(output.content()).startsWith("a\n[read_file: showed the first 2 of 3 bytes;");
    }

    @Test
    void offloadsALargeFile_toTheBlobStore_withAPreview() throws Exception {
        String content = "a line of a large file\n".repeat(10_000); // 230 KB, over the 64 KiB threshold
        bed.write("large.txt", content);

        ToolOutput output = bed.run(tool, args("path", "large.txt"));

        assertThat(output.status()).isEqualTo(ToolOutput.Status.OK);
        assertThat(output.artifact()).isNotNull();
        assertThat(output.content()).hasSize(BlobOffloader.DEFAULT_PREVIEW_CHARS).isEqualTo(
                content.substring(0, BlobOffloader.DEFAULT_PREVIEW_CHARS));
        assertThat(output.artifact().preview()).isEqualTo(output.content());
        assertThat(output.artifact().size()).isEqualTo(content.length());
        assertThat(output.artifact().sha256()).isEqualTo(Testbed.sha256(content));
        assertThat(new String(bed.artifact(output.artifact()), UTF_8)).isEqualTo(content);
    }

    @Test
    void keepsASmallFileInline() throws Exception {
        String content = "x".repeat(BlobOffloader.DEFAULT_THRESHOLD_BYTES);
        bed.write("small.txt", content);

        ToolOutput output = bed.run(tool, args("path", "small.txt"));

        assertThat(output.artifact()).isNull();
        assertThat(output.content()).isEqualTo(content);
    }

    @Test
    void redactsSecretsInTheFile_fromItsOutput() throws Exception {
        List<PlantedSecrets.Planted> planted = PlantedSecrets.all();
        bed.write(".env", planted.stream().map(PlantedSecrets.Planted::text).collect(Collectors.joining("\n")));

        String content = bed.run(tool, args("path", ".env")).content();

        for (PlantedSecrets.Planted secret : planted) {
            assertThat(content).as(secret.kind()).doesNotContain(secret.secret());
        }
        assertThat(content).contains("[REDACTED:");
    }

    @Test
    void redactsTheBeginningOfASecret_thatMaxBytesCutsOff() throws Exception {
        bed.write("config.txt", "db: Zq8k2LmW9xR4tY7p\n");
        ToolContext context = bed.context();
        context.redactor().registerSecret("db", "Zq8k2LmW9xR4tY7p"); // as the executor registers every configured one

        ToolOutput output = tool.execute(context, args("path", "config.txt", "maxBytes", 18));

        assertThat(output.content()).isEqualTo("db: [REDACTED:secret:db]\n"
                + "[read_file: showed the first 18 of 21 bytes; pass a larger maxBytes to read more]\n");
    }

    @Test
    void refusesABinaryFile() throws Exception {
        bed.write("image.bin", new byte[] {'P', 'N', 'G', 0, 1, 2});
        bed.write("latin1.txt", new byte[] {'c', 'a', 'f', (byte) 0xE9});

        assertThat(bed.failure(tool, args("path", "image.bin")))
                .hasMessage("argument path: image.bin is binary (6 bytes), not UTF-8 text")
                .extracting(ToolException::kind).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
        assertThat(bed.failure(tool, args("path", "latin1.txt")))
                .hasMessage("argument path: latin1.txt is binary (4 bytes), not UTF-8 text");
    }

    @Test
    void refusesAMissingFile_aDirectory_andMaxBytesOutOfRange() throws Exception {
        Files.createDirectories(bed.root.resolve("src"));
        bed.write("a.txt", "a");

        assertThat(bed.failure(tool, args("path", "nope.txt"))).hasMessage("argument path: no such file: nope.txt");
        assertThat(bed.failure(tool, args("path", "src")))
                .hasMessage("argument path: src is a directory; list it with list_dir");
        assertThat(bed.failure(tool, args("path", "a.txt", "maxBytes", 0)))
                .hasMessage("argument maxBytes: must be an integer from 1 to " + ReadFileTool.MAX_MAX_BYTES);
        assertThat(bed.failure(tool, args("path", "a.txt", "maxBytes", ReadFileTool.MAX_MAX_BYTES + 1)))
                .hasMessageStartingWith("argument maxBytes: must be an integer");
        assertThat(bed.failure(tool, args("path", "a.txt", "maxBytes", 2.5)))
                .hasMessageStartingWith("argument maxBytes: must be an integer");
    }

    @Test
    @Timeout(value = 10, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void refusesAFifo_insteadOfWaitingForeverForAWriter() throws Exception {
        Process mkfifo = new ProcessBuilder("mkfifo", bed.root.resolve("pipe").toString()).start();
        assertThat(mkfifo.waitFor(5, TimeUnit.SECONDS)).isTrue();
        assertThat(mkfifo.exitValue()).isZero();

        assertThat(bed.failure(tool, args("path", "pipe"))).hasMessage("argument path: pipe is not a regular file");
    }

    @Test
    void isReadOnlyAndIdempotent_soAnInterruptedCallIsSafeToRunAgain() throws Exception {
        bed.write("a.txt", "a");
        var started = LedgerEntry.started("call-1", ReadFileTool.NAME, "{\"path\":\"a.txt\"}", Intent.NONE, 1);

        assertThat(tool.mutating()).isFalse();
        assertThat(tool.idempotent()).isTrue();
        assertThat(tool.intent(bed.context(), args("path", "a.txt"))).isEqualTo(Intent.NONE);
        assertThat(tool.reconcile(bed.context(), args("path", "a.txt"), started))
                .isEqualTo(new Reconciliation.NotApplied());
    }
}
