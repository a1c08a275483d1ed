package dev.tether.tools;

import static dev.tether.tools.Testbed.args;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.tether.testing.PlantedSecrets;
import dev.tether.tools.sandbox.CommandRunner;
import dev.tether.tools.sandbox.Isolation;
import dev.tether.tools.sandbox.NamespacesRequired;
import dev.tether.tools.sandbox.RunnerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs real commands through the runner. Skipped where the host allows no namespaces: the runner refuses to run
 * commands there (see {@link #refusesToRun_whereIsolationIsUnavailable}).
 */
class RunCommandToolTest {

    @TempDir
    Path temp;

    private Testbed bed;
    private final RunCommandTool tool = new RunCommandTool();
    private List<ProcessHandle> sleepers = List.of();

    @BeforeEach
    void setUp() {
        bed = new Testbed(temp);
    }

    @AfterEach
    void killLeftovers() {
        sleepers.forEach(ProcessHandle::destroyForcibly);
    }

    private static void assumeNamespaces() {
        NamespacesRequired.assumeNamespaces(Testbed.ISOLATION);
    }

    @Test
    void isOk_withTheOutputAndTheExitCode_whenTheCommandSucceeds() throws Exception {
        assumeNamespaces();

        ToolOutput output = bed.run(tool, args("command", "echo hello; echo made > made.txt; echo to-stderr >&2"));

        assertThat(output.status()).isEqualTo(ToolOutput.Status.OK);
        assertThat(output.content()).matches("hello\nto-stderr\n\\[run_command: exit code 0 after \\d+ ms]\n");
        assertThat(bed.read("made.txt")).isEqualTo("made\n");
        assertThat(output.beforeHash()).isNull();
        assertThat(output.artifact()).isNull();
    }

    @Test
    void isAnError_withTheExitCode_whenTheCommandFails() throws Exception {
        assumeNamespaces();

        ToolOutput output = bed.run(tool, args("command", "printf 'no newline'; exit 3"));

        assertThat(output.status()).isEqualTo(ToolOutput.Status.ERROR);
        assertThat(output.content()).matches("no newline\n\\[run_command: exit code 3 after \\d+ ms]\n");
    }

    @Test
    void redactsTheRunnersEnvironmentValues_fromTheOutput() throws Exception {
        assumeNamespaces();
        bed.withRunnerConfig(RunnerConfig.defaults().withEnvironment(Map.of("API_TOKEN", "tok-1234567890-abc")));

        ToolOutput output = bed.run(tool, args("command", "echo \"token is $API_TOKEN\""));

        assertThat(output.content()).startsWith("token is [REDACTED:env:API_TOKEN]\n")
                .doesNotContain("tok-1234567890-abc");
    }

    @Test
    void redactsEveryPlantedSecret_thatTheCommandPrints() throws Exception {
        assumeNamespaces();
        List<PlantedSecrets.Planted> planted = PlantedSecrets.all();
        bed.write("planted.txt", planted.stream().map(PlantedSecrets.Planted::text).collect(Collectors.joining("\n")));

        ToolOutput output = bed.run(tool, args("command", "cat planted.txt"));

        assertThat(output.status()).isEqualTo(ToolOutput.Status.OK);
        for (PlantedSecrets.Planted secret : planted) {
            assertThat(output.content()).as(secret.kind()).doesNotContain(secret.secret());
        }
    }

    @Test
    void resolvesASecretReference_forTheCommand_andRedactsItsValue() throws Exception {
        assumeNamespaces();
        bed.withSecrets(Map.of("db.password", "correct-horse-battery"));

        ToolOutput output = bed.run(tool, args("command",
                "printf %s secret://db.password > seen.txt; echo \"using secret://db.password\""));

        assertThat(bed.read("seen.txt")).isEqualTo("correct-horse-battery");
        assertThat(output.content()).startsWith("using [REDACTED:secret:db.password]\n")
                .doesNotContain("correct-horse-battery");
    }

    @Test
    void refusesAnUnknownSecret_namingTheArgument_withoutRunning() throws Exception {
        ToolException refused = bed.failure(tool, args("command", "touch ran; echo secret://missing"));

        assertThat(refused.kind()).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
        assertThat(refused.getMessage()).startsWith("argument command: ").contains("secret://missing");
        assertThat(bed.root.resolve("ran")).doesNotExist();
    }

    @Test
    void isAnError_whenItTimesOut() throws Exception {
        assumeNamespaces();

        long start = System.nanoTime();
        ToolOutput output = bed.run(tool, args("command", "echo started; sleep 30", "timeoutSeconds", 1));
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertThat(output.status()).isEqualTo(ToolOutput.Status.ERROR);
        assertThat(output.content()).matches("started\n\\[run_command: timed out after \\d+ ms; the command and every "
                + "process it started were killed]\n");
        assertThat(tookMs).isBetween(900L, 10_000L);
    }

    @Test
    void cannotStretchTheConfiguredTimeout_byAskingForALongerOne() throws Exception {
        assumeNamespaces();
        bed.withRunnerConfig(RunnerConfig.defaults().withTimeout(Duration.ofSeconds(1)));

        long start = System.nanoTime();
        ToolOutput output = bed.run(tool, args("command", "echo started; sleep 30", "timeoutSeconds", 3600));
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertThat(output.status()).isEqualTo(ToolOutput.Status.ERROR);
        assertThat(output.content()).startsWith("started\n[run_command: timed out after ");
        assertThat(tookMs).isBetween(900L, 10_000L);
    }

    @Test
    void isCancelled_whenTheTokenIsCancelled_andKillsEveryProcessTheCommandStarted() throws Exception {
        assumeNamespaces();
        var cancellation = new CancellationToken();
        String seconds = "3" + ProcessHandle.current().pid() % 1000 + "7"; // a sleep no other process has
        String sleep = "sleep " + seconds;
        CompletableFuture<ToolOutput> call = CompletableFuture.supplyAsync(() -> {
            try {
                return tool.execute(bed.context(cancellation), args("command",
                        "(setsid " + sleep + " &); " + sleep + " & touch started; " + sleep));
            } catch (ToolException e) {
                throw new IllegalStateException(e);
            }
        });
        sleepers = awaitSleeps(seconds, 3);

        cancellation.cancel();
        ToolOutput output = call.get(15, TimeUnit.SECONDS);

        assertThat(output.status()).isEqualTo(ToolOutput.Status.CANCELLED);
        assertThat(output.content()).matches("\\[run_command: cancelled after \\d+ ms; the command and every process "
                + "it started were killed]\n");
        assertThat(sleepers).hasSize(3).noneMatch(ProcessHandle::isAlive);
        assertThat(bed.root.resolve("started")).exists();
    }

    @Test
    void runsNothing_whenCancelledBeforeItStarts() throws Exception {
        assumeNamespaces();
        var cancelled = new CancellationToken();
        cancelled.cancel();

        ToolOutput output = tool.execute(bed.context(cancelled), args("command", "touch ran"));

        assertThat(output.status()).isEqualTo(ToolOutput.Status.CANCELLED);
        assertThat(output.content()).isEqualTo("[run_command: cancelled before it started]\n");
        assertThat(bed.root.resolve("ran")).doesNotExist();
    }

    @Test
    void refusesToRun_whereIsolationIsUnavailable() {
        var unavailable = Isolation.Unavailable.because("no user namespaces in this test");
        var runner = new CommandRunner(RunnerConfig.defaults(), unavailable);

        Throwable thrown = catchThrowable(
                () -> tool.execute(bed.context(runner, new CancellationToken()), args("command", "touch ran")));

        assertThat(thrown).isInstanceOf(ToolException.class).hasMessageContaining("no user namespaces in this test");
        assertThat(((ToolException) thrown).kind()).isEqualTo(ToolException.Kind.REFUSED);
        assertThat(bed.root.resolve("ran")).doesNotExist();
    }

    @Test
    void refusesBadArguments_namingThem() {
        assertThat(bed.failure(tool, args())).hasMessage("argument command: is required");
        assertThat(bed.failure(tool, args("command", ""))).hasMessage("argument command: must not be empty");
        assertThat(bed.failure(tool, args("command", List.of("ls")))).hasMessage("argument command: must be a string");
        assertThat(bed.failure(tool, args("command", "a\0b")))
                .hasMessage("argument command: must not hold a NUL character");
        assertThat(bed.failure(tool, args("command", "ls", "timeoutSeconds", 0)))
                .hasMessage("argument timeoutSeconds: must be an integer from 1 to 3600");
        assertThat(bed.failure(tool, args("command", "ls", "timeoutSeconds", 3601)))
                .hasMessage("argument timeoutSeconds: must be an integer from 1 to 3600");
        assertThat(bed.failure(tool, args("command", "ls", "timeoutSeconds", "10")))
                .hasMessage("argument timeoutSeconds: must be an integer from 1 to 3600");
        assertThat(bed.failure(tool, args("command", "ls", "cwd", "/")))
                .hasMessage("argument cwd: unknown; this tool takes [command, timeoutSeconds]");
    }

    @Test
    void cannotProveWhatAnInterruptedCommandDid() {
        var started = LedgerEntry.started("call-1", RunCommandTool.NAME, "{}", Intent.NONE, 1);

        Reconciliation found = tool.reconcile(bed.context(), args("command", "make"), started);

        assertThat(found).isInstanceOf(Reconciliation.Unknown.class);
        assertThat(((Reconciliation.Unknown) found).why()).contains("cannot be proven");
        assertThat(tool.mutating()).isTrue();
        assertThat(tool.idempotent()).isFalse();
    }

    @Test
    void hasNoIntent_toRecord() throws Exception {
        assertThat(tool.intent(bed.context(), args("command", "touch ran"))).isEqualTo(Intent.NONE);
        assertThat(bed.root.resolve("ran")).doesNotExist();
    }

    /** Waits until {@code count} processes run {@code sleep <seconds>}, seen from the host, and returns them. */
    private static List<ProcessHandle> awaitSleeps(String seconds, int count) throws InterruptedException {
        List<ProcessHandle> found = List.of();
        for (int i = 0; i < 500 && found.size() < count; i++) {
            Thread.sleep(10);
            found = ProcessHandle.allProcesses().filter(process -> isSleep(process, seconds)).toList();
        }
        assertThat(found).as("processes running sleep " + seconds).hasSize(count);
        return found;
    }

    private static boolean isSleep(ProcessHandle process, String seconds) {
        ProcessHandle.Info info = process.info();
        return info.command().filter(command -> command.endsWith("/sleep")).isPresent()
                && info.arguments().filter(arguments -> List.of(arguments).equals(List.of(seconds))).isPresent();
    }
}
