package dev.tether.tools;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.core.blob.BlobOffloader;
import dev.tether.core.blob.BlobRef;
import dev.tether.core.blob.LocalBlobStore;
import dev.tether.tools.sandbox.CommandRunner;
import dev.tether.tools.sandbox.Isolation;
import dev.tether.tools.sandbox.MapSecretProvider;
import dev.tether.tools.sandbox.OutputRedactor;
import dev.tether.tools.sandbox.RunnerConfig;
import dev.tether.tools.sandbox.Workspace;
import dev.tether.tools.sandbox.WorkspaceRoot;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One session's workspace in a temporary directory, with everything a tool call needs around it: a blob store, a
 * command runner with the isolation this host allows, secrets. Make one per test; {@link #context()} makes one
 * {@link ToolContext} per call, as the executor does.
 */
final class Testbed {

    /** Found once: probing runs a process. */
    static final Isolation ISOLATION = Isolation.detect(RunnerConfig.defaults());
    static final String TENANT = "tenant-1";

    private static final ObjectMapper JSON = new ObjectMapper();

    final Path temp;
    final Workspace workspace;
    final Path root;
    final LocalBlobStore blobs;
    private RunnerConfig runnerConfig = RunnerConfig.defaults().withTimeout(Duration.ofSeconds(20));
    private Map<String, String> secrets = Map.of();

    /** @param temp a JUnit {@code @TempDir} or a directory in one; opened up so that the command user can enter */
    Testbed(Path temp) {
        this.temp = temp;
        try {
            Files.createDirectories(temp);
            Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rwx--x--x"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.workspace = new WorkspaceRoot(temp.resolve("workspaces"), ISOLATION.commandUser()).open("session-1");
        this.root = workspace.root();
        this.blobs = new LocalBlobStore(temp.resolve("blobs"));
    }

    Testbed withRunnerConfig(RunnerConfig config) {
        this.runnerConfig = config;
        return this;
    }

    Testbed withSecrets(Map<String, String> secrets) {
        this.secrets = Map.copyOf(secrets);
        return this;
    }

    /** A fresh context for one call: its own redactor and cancellation token. */
    ToolContext context() {
        return context(new CancellationToken());
    }

    ToolContext context(CancellationToken cancellation) {
        return context(new CommandRunner(runnerConfig, ISOLATION), cancellation);
    }

    ToolContext context(CommandRunner runner, CancellationToken cancellation) {
        return new ToolContext(workspace, runner, new OutputRedactor(), new MapSecretProvider(secrets),
                new BlobOffloader(blobs), TENANT, "call-1", cancellation);
    }

    /** Runs one call with a fresh context. */
    ToolOutput run(Tool tool, JsonNode arguments) throws ToolException {
        return tool.execute(context(), arguments);
    }

    /** The call's failure, which must be a {@link ToolException}. */
    ToolException failure(Tool tool, JsonNode arguments) {
        Throwable thrown = catchThrowable(() -> run(tool, arguments));
        assertThat(thrown).isInstanceOf(ToolException.class);
        return (ToolException) thrown;
    }

    /** Arguments from names and values in turn: {@code args("path", "a.txt", "maxBytes", 4)}. */
    static ObjectNode args(Object... namesAndValues) {
        var map = new LinkedHashMap<String, Object>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            map.put((String) namesAndValues[i], namesAndValues[i + 1]);
        }
        return JSON.valueToTree(map);
    }

    /** Arguments from JSON text. */
    static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes a file in the workspace directly, not through a tool, creating its directories. */
    Path write(String relative, String content) throws IOException {
        return write(relative, content.getBytes(UTF_8));
    }

    Path write(String relative, byte[] content) throws IOException {
        Path file = root.resolve(relative);
        Files.createDirectories(file.getParent());
        return Files.write(file, content);
    }

    String read(String relative) throws IOException {
        return Files.readString(root.resolve(relative));
    }

    /** The bytes of an offloaded artifact, read back from the blob store. */
    byte[] artifact(BlobRef ref) throws IOException {
        try (InputStream in = blobs.open(TENANT, ref.sha256()).orElseThrow()) {
            return in.readAllBytes();
        }
    }

    /** SHA-256 in lower-case hex, computed here rather than by the code under test. */
    static String sha256(String text) {
        return sha256(text.getBytes(UTF_8));
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
