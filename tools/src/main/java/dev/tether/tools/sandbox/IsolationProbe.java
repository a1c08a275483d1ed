package dev.tether.tools.sandbox;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Finds out whether namespaces can be created here, by creating them, and hiding a workspace's siblings as
 * {@link CommandLine} does, for a command that does nothing in a throw-away workspace.
 */
final class IsolationProbe {

    private static final long TIMEOUT_SECONDS = 10;
    private static final int MAX_REPORTED_CHARS = 300;

    private IsolationProbe() {}

    static Isolation detect(RunnerConfig config) {
        SandboxUser current = SandboxUser.current();
        var candidate = current.isRoot()
                ? new Isolation.Namespaces(config.sandboxUser(), true)
                : new Isolation.Namespaces(current, false);
        Path probeDirectory;
        Workspace workspace;
        try {
            probeDirectory = Files.createTempDirectory("tether-isolation-probe");
            Files.setPosixFilePermissions(probeDirectory, PosixFilePermissions.fromString("rwx--x--x"));
            workspace = new WorkspaceRoot(probeDirectory.resolve("workspaces"), candidate.commandUser()).open("probe");
        } catch (IOException | UncheckedIOException e) {
            return Isolation.Unavailable.because("cannot create the probe's workspace: " + e.getMessage());
        }
        try {
            return probe(candidate, config, workspace);
        } finally {
            deleteQuietly(probeDirectory);
        }
    }

    private static Isolation probe(Isolation.Namespaces candidate, RunnerConfig config, Workspace workspace) {
        var builder = new ProcessBuilder(CommandLine.of(candidate, config, workspace.root()))
                .directory(workspace.root().toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectErrorStream(true);
        Map<String, String> environment = builder.environment();
        environment.keySet().retainAll(Set.of("PATH"));
        CommandLine.putCommand(environment, "exit 0");
        try {
            Process probe = builder.start();
            if (!probe.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                probe.destroyForcibly();
                return Isolation.Unavailable.because("the namespace probe did not finish in " + TIMEOUT_SECONDS + " s");
            }
            if (probe.exitValue() == 0) {
                return candidate;
            }
            return Isolation.Unavailable.because(
                    "the namespace probe exited with " + probe.exitValue() + ": " + report(probe.getInputStream()));
        } catch (IOException e) {
            return Isolation.Unavailable.because("the namespace probe could not start: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Isolation.Unavailable.because("interrupted while probing for namespaces");
        }
    }

    private static void deleteQuietly(Path directory) {
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // a leftover empty directory in the temp directory is harmless
        }
    }

    private static String report(InputStream output) throws IOException {
        String text = new String(output.readNBytes(MAX_REPORTED_CHARS), UTF_8).strip();
        return text.isEmpty() ? "(no output)" : text;
    }
}
