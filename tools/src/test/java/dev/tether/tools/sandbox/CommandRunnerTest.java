package dev.tether.tools.sandbox;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tether.testing.PlantedSecrets;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs real commands. The tests that need namespaces are skipped where {@link Isolation#detect} finds none (they fail
 * instead with {@code TETHER_REQUIRE_NAMESPACES=1}, see {@link NamespacesRequired}); the ones
 * that kill trees record every process they saw and kill leftovers by pid afterwards.
 */
class CommandRunnerTest {

    private static final Isolation ISOLATION = Isolation.detect(RunnerConfig.defaults());
    private static final RunnerConfig QUICK = RunnerConfig.defaults().withTimeout(Duration.ofSeconds(20));

    @TempDir
    Path temp;

    private Workspace workspace;
    private final Set<ProcessHandle> seen = new HashSet<>();

    @BeforeEach
    void openWorkspace() throws IOException {
        Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rwx--x--x")); // the command user must enter
        workspace = new WorkspaceRoot(temp.resolve("workspaces"), ISOLATION.commandUser()).open("session-1");
    }

    @AfterEach
    void killLeftovers() {
        seen.forEach(ProcessHandle::destroyForcibly);
    }

    private static void assumeNamespaces() {
        NamespacesRequired.assumeNamespaces(ISOLATION);
    }

    private CommandResult run(RunnerConfig config, String command) throws Exception {
        return new CommandRunner(config, ISOLATION).run(CommandRequest.in(workspace, command));
    }

    @Test
    void detectsNamespaces_asRootOnThisKindOfHost() {
        assumeTrue(SandboxUser.current().isRoot());

        assertThat(ISOLATION).isEqualTo(new Isolation.Namespaces(SandboxUser.NOBODY, true));
    }

    @Test
    void runsTheCommand_inTheWorkspace_withAMinimalEnvironment_andNoInput() throws Exception {
        assumeNamespaces();

        CommandResult result = run(QUICK, "pwd; echo \"HOME=$HOME\"; test -t 0 || echo no-tty; cat; env | cut -d= -f1 | sort");

        assertThat(result.succeeded()).isTrue();
        List<String> lines = result.output().lines().toList();
        assertThat(lines).startsWith(workspace.root().toString(), "HOME=" + workspace.root(), "no-tty");
        Set<String> variables = Set.copyOf(lines.subList(3, lines.size()));
        assertThat(variables).contains("PATH", "HOME", "LANG").isSubsetOf("PATH", "HOME", "LANG", "PWD", "OLDPWD");
    }

    @Test
    void cannotReadOrChangeAnotherSessionsWorkspace_byRelativeOrAbsolutePath() throws Exception {
        assumeNamespaces();
        Workspace sibling = new WorkspaceRoot(temp.resolve("workspaces"), ISOLATION.commandUser()).open("session-2");
        sibling.write(sibling.resolve("f"), "sibling-content\n".getBytes(UTF_8));
        workspace.write(workspace.resolve("f"), "own-content\n".getBytes(UTF_8));
        String absolute = sibling.root().resolve("f").toString();

        CommandResult result = run(QUICK, "cat f; echo own-rc=$?; "
                + "cat ../session-2/f; echo relative-rc=$?; "
                + "cat " + absolute + "; echo absolute-rc=$?; "
                + "echo \"listed: $(ls -a .. | tr '\\n' ' ')\"; "
                + "echo changed > ../session-2/f; echo write-rc=$?; "
                + unmount(sibling.root().getParent()) + "cat " + absolute + "; echo unmounted-rc=$?; "
                + "echo still-mine > g; cat g");

        assertThat(result.output()).doesNotContain("sibling-content").contains("own-content\nown-rc=0\n")
                .containsPattern("relative-rc=[1-9]").containsPattern("absolute-rc=[1-9]")
                .containsPattern("write-rc=[1-9]").containsPattern("unmounted-rc=[1-9]")
                .contains("listed: . .. session-1 \n").endsWith("still-mine\n");
        assertThat(sibling.root().resolve("f")).hasContent("sibling-content");
        assertThat(workspace.root().resolve("g")).hasContent("still-mine");
        try (var names = Files.list(sibling.root())) {
            assertThat(names.map(p -> p.getFileName().toString())).containsExactly("f");
        }
        if (X86_64) {
            assertThat(result.output()).contains("umount2=-1 errno=22"); // EINVAL: the mount is locked
        }
    }

    private static final boolean X86_64 = System.getProperty("os.arch").equals("amd64");

    /**
     * Tries to uncover the other workspaces with the {@code umount2} system call itself ({@code umount(8)} refuses
     * before calling it, as the namespace's mount table is not the one it expects): number 166 on x86-64, MNT_DETACH.
     */
    private static String unmount(Path directory) {
        return X86_64
                ? "perl -e '$r = syscall(166, $ARGV[0], 2); print \"umount2=$r errno=\", $! + 0, \"\\n\"' " + directory + "; "
                : "umount -l " + directory + "; ";
    }

    @Test
    void aRequestedTimeout_shortensTheConfiguredOne_butNeverStretchesIt() {
        var runner = new CommandRunner(QUICK.withTimeout(Duration.ofSeconds(5)), ISOLATION);
        var request = CommandRequest.in(workspace, "true");

        assertThat(runner.timeoutOf(request)).isEqualTo(Duration.ofSeconds(5));
        assertThat(runner.timeoutOf(request.withTimeout(Duration.ofSeconds(2)))).isEqualTo(Duration.ofSeconds(2));
        assertThat(runner.timeoutOf(request.withTimeout(Duration.ofHours(1)))).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void reportsTheExitCode_ofAFailingCommand() throws Exception {
        assumeNamespaces();

        CommandResult result = run(QUICK, "echo failing >&2; exit 3");

        assertThat(result.exitCode()).isEqualTo(3);
        assertThat(result.succeeded()).isFalse();
        assertThat(result.output()).isEqualTo("failing\n");
        assertThat(result.timedOut()).isFalse();
        assertThat(result.cancelled()).isFalse();
    }

    @Test
    void runsAsRootInItsUserNamespace_whichIsTheWorkspaceOwnerOutside() throws Exception {
        assumeNamespaces();

        CommandResult result = run(QUICK, "id -u; touch made-by-command; { echo x > /etc/tether-test; } 2>/dev/null || echo refused");

        assertThat(result.output()).isEqualTo("0\nrefused\n");
        assertThat(Files.getAttribute(workspace.root().resolve("made-by-command"), "unix:uid"))
                .isEqualTo(ISOLATION.commandUser().uid());
        assertThat(Path.of("/etc/tether-test")).doesNotExist();
    }

    @Test
    void givesTheConfiguredEnvironment_andRedactsItsLongValues() throws Exception {
        assumeNamespaces();
        RunnerConfig config = QUICK.withEnvironment(Map.of("API_TOKEN", "s3cr3t-value-42", "DEBUG", "1"));

        CommandResult result = run(config, "echo \"$API_TOKEN and $DEBUG\"");

        assertThat(result.output()).isEqualTo("[REDACTED:env:API_TOKEN] and 1\n");
        assertThat(result.redactions()).isEqualTo(1);
    }

    @Test
    void capsTheOutput_andKeepsDrainingSoTheCommandRunsToItsEnd() throws Exception {
        assumeNamespaces();
        RunnerConfig config = QUICK.withOutputCapBytes(64 * 1024);

        CommandResult result = run(config, "yes 'a line of output' | head -c 5000000; echo finished > done");

        assertThat(result.succeeded()).isTrue();
        assertThat(result.truncated()).isTrue();
        assertThat(workspace.root().resolve("done")).hasContent("finished");
        assertThat(result.output()).startsWith("a line of output\n").endsWith(" bytes not shown]\n");
        List<String> lines = result.output().lines().toList();
        assertThat(lines.subList(0, lines.size() - 1)).allMatch("a line of output"::equals);
        assertThat(result.output().getBytes(UTF_8).length).isLessThanOrEqualTo(64 * 1024 + 100);
    }

    @Test
    void killsTheWholeTree_onTimeout_includingSleepingAndDoubleForkedGrandchildren() throws Exception {
        assumeNamespaces();
        var runner = new CommandRunner(QUICK.withTimeout(Duration.ofSeconds(2)), ISOLATION);

        RunningCommand running = runner.start(CommandRequest.in(workspace,
                "(sleep 300 &) ; (setsid sleep 301 &) ; setsid sleep 302 & sleep 303 & sleep 304"));
        Set<ProcessHandle> tree = treeOnceSleeping(running, 5);
        CommandResult result = running.await();

        assertThat(result.timedOut()).isTrue();
        assertThat(result.cancelled()).isFalse();
        assertThat(result.exitCode()).isEqualTo(137);
        assertThat(result.durationMs()).isBetween(1900L, 10_000L);
        assertThat(tree).noneMatch(ProcessTree::running);
    }

    @Test
    void cancellationKillsTheWholeTree_andReportsCancelled() throws Exception {
        assumeNamespaces();
        var runner = new CommandRunner(QUICK, ISOLATION);

        RunningCommand running = runner.start(CommandRequest.in(workspace,
                "(setsid sleep 300 &) ; sleep 301 & sleep 302"));
        Set<ProcessHandle> tree = treeOnceSleeping(running, 3);
        running.cancel();
        CommandResult result = running.await();

        assertThat(result.cancelled()).isTrue();
        assertThat(result.timedOut()).isFalse();
        assertThat(result.durationMs()).isLessThan(10_000L);
        assertThat(tree).noneMatch(ProcessTree::running);
        running.cancel(); // harmless after the end
        assertThat(running.await()).isSameAs(result);
    }

    @Test
    void stopsForks_beyondTheProcessLimit() throws Exception {
        assumeNamespaces();

        CommandResult result = run(QUICK.withMaxProcesses(20),
                "i=0; while [ $i -lt 40 ]; do sleep 30 & i=$((i+1)); done; echo started $i");

        assertThat(result.output()).contains("fork").doesNotContain("started 40");
    }

    @Test
    void containsAForkBomb_withTheProcessLimit_andKillsItOnTimeout() throws Exception {
        assumeNamespaces();
        // the bomb runs only if the limit holds: on a host where it did not, the bomb would starve every process
        stopsForks_beyondTheProcessLimit();
        var runner = new CommandRunner(QUICK.withMaxProcesses(64).withTimeout(Duration.ofSeconds(3)), ISOLATION);

        RunningCommand running = runner.start(CommandRequest.in(workspace, "bash -c ':(){ :|:& };:'; sleep 300"));
        long most = 0;
        ProcessHandle first = ProcessHandle.of(running.pid()).orElseThrow();
        while (first.isAlive()) {
            List<ProcessHandle> now = first.descendants().toList();
            seen.addAll(now);
            most = Math.max(most, now.size());
            Thread.sleep(50);
        }
        CommandResult result = running.await();

        assertThat(result.timedOut()).isTrue();
        assertThat(most).isBetween(2L, 64L);
        assertThat(seen).noneMatch(ProcessTree::running);
    }

    @Test
    void cannotOpenATcpConnection_whenTheNetworkIsOff() throws Exception {
        assumeNamespaces();
        try (var server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {

            CommandResult result = run(QUICK, connectTo(server));

            assertThat(result.exitCode()).isNotZero();
            assertThat(result.output()).doesNotContain("connected");
        }
    }

    @Test
    void opensATcpConnection_whenTheNetworkIsOnByConfiguration() throws Exception {
        assumeNamespaces();
        try (var server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {

            CommandResult result = run(QUICK.withNetworkAccess(true), connectTo(server));

            assertThat(result.output()).isEqualTo("connected\n");
        }
    }

    private static String connectTo(ServerSocket server) {
        return "bash -c 'exec 3<>/dev/tcp/127.0.0.1/" + server.getLocalPort() + " && echo connected'";
    }

    @Test
    void failsAnAllocation_beyondTheMemoryLimit() throws Exception {
        assumeNamespaces();
        RunnerConfig config = QUICK.withMemoryLimitBytes(256L * 1024 * 1024);

        CommandResult within = run(config, "head -c 16000000 /dev/zero | tail | wc -c");
        CommandResult beyond = run(config, "head -c 600000000 /dev/zero | tail > /dev/null");

        assertThat(within.output()).isEqualTo("16000000\n");
        assertThat(beyond.exitCode()).isNotZero();
        assertThat(beyond.output()).contains("memory exhausted");
    }

    @Test
    void redactsEveryPlantedSecret_thatACommandPrints() throws Exception {
        assumeNamespaces();
        List<PlantedSecrets.Planted> planted = PlantedSecrets.all();
        String text = planted.stream().map(PlantedSecrets.Planted::text).collect(Collectors.joining("\n", "", "\n"));
        workspace.write(workspace.resolve("planted.txt"), text.getBytes(UTF_8));

        CommandResult result = run(QUICK, "cat planted.txt; printf '%s\\n' \"$(cat planted.txt)\" >&2");

        assertThat(result.succeeded()).isTrue();
        for (PlantedSecrets.Planted secret : planted) {
            assertThat(result.output()).as(secret.kind()).doesNotContain(secret.secret());
        }
        assertThat(result.redactions()).isGreaterThanOrEqualTo(2 * planted.size());
    }

    @Test
    void redactsAResolvedSecret_thatACommandPrints() throws Exception {
        assumeNamespaces();
        var redactor = new OutputRedactor();
        String command = new SecretResolver(new MapSecretProvider(Map.of("db", "hunter2-but-longer")), redactor)
                .resolveIn("echo \"connecting with secret://db\"");

        CommandResult result = new CommandRunner(QUICK, ISOLATION)
                .run(CommandRequest.in(workspace, command).withRedactor(redactor));

        assertThat(result.output()).isEqualTo("connecting with [REDACTED:secret:db]\n");
    }

    @Test
    void refusesAWorkspace_notOwnedByTheCommandUser() {
        assumeNamespaces();
        assumeTrue(SandboxUser.current().isRoot());
        Workspace rootOwned = new WorkspaceRoot(temp.resolve("root-owned"), SandboxUser.current()).open("s");

        assertThatThrownBy(() -> new CommandRunner(QUICK, ISOLATION).start(CommandRequest.in(rootOwned, "true")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("commands run as " + ISOLATION.commandUser());
    }

    @Test
    void refusesToRun_whereIsolationIsUnavailable_unlessAllowed() {
        var unavailable = Isolation.Unavailable.because("no user namespaces in this test");
        Workspace own = new WorkspaceRoot(temp.resolve("own"), unavailable.commandUser()).open("s");

        assertThatThrownBy(() -> new CommandRunner(QUICK, unavailable).start(CommandRequest.in(own, "true")))
                .isInstanceOf(IsolationUnavailableException.class)
                .hasMessageContaining("no user namespaces in this test")
                .hasMessageContaining("allowNetworkWhenIsolationUnavailable=true");
    }

    @Test
    void killsTheProcessGroup_onTimeout_whereIsolationIsUnavailableButAllowed() throws Exception {
        var unavailable = Isolation.Unavailable.because("forced by the test");
        Workspace own = new WorkspaceRoot(temp.resolve("own"), unavailable.commandUser()).open("s");
        var runner = new CommandRunner(
                QUICK.withTimeout(Duration.ofSeconds(1)).withAllowNetworkWhenIsolationUnavailable(true), unavailable);

        CommandResult result = runner.run(CommandRequest.in(own,
                "(sleep 300 & echo $! > orphan) ; sleep 301 & echo $! > child; sleep 302"));

        assertThat(result.timedOut()).isTrue();
        for (String pidFile : List.of("orphan", "child")) {
            long pid = Long.parseLong(Files.readString(own.root().resolve(pidFile)).strip());
            ProcessHandle.of(pid).ifPresent(seen::add);
            assertThat(ProcessHandle.of(pid).filter(ProcessTree::running)).as(pidFile).isEmpty();
        }
    }

    @Test
    void keepsTheCommand_outOfEveryProcesssArgv_whichAnyLocalUserCanRead() throws Exception {
        assumeNamespaces();
        String secret = "resolved-secret-" + System.nanoTime();

        RunningCommand running = new CommandRunner(QUICK, ISOLATION).start(CommandRequest.in(workspace,
                "v='" + secret + "'; sleep 300 & sleep 301"));
        var tree = new HashSet<>(treeOnceSleeping(running, 2));
        tree.add(ProcessHandle.of(running.pid()).orElseThrow());
        List<String> argvs = tree.stream().map(CommandRunnerTest::cmdline).toList();
        running.cancel();
        running.await();

        assertThat(argvs).hasSizeGreaterThanOrEqualTo(4).noneMatch(argv -> argv.contains(secret));
        assertThat(argvs).anyMatch(argv -> argv.contains("sleep 301"));
    }

    @Test
    void keepsTheCommand_outOfItsArgv_whereIsolationIsUnavailableButAllowed() throws Exception {
        var unavailable = Isolation.Unavailable.because("forced by the test");
        Workspace own = new WorkspaceRoot(temp.resolve("own"), unavailable.commandUser()).open("s");
        String secret = "resolved-secret-" + System.nanoTime();

        CommandResult result = new CommandRunner(QUICK.withAllowNetworkWhenIsolationUnavailable(true), unavailable)
                .run(CommandRequest.in(own, "v='" + secret + "'; tr '\\0\\n' '  ' < /proc/$$/cmdline; echo; "
                        + "env | grep -c TETHER_COMMAND; echo \"$v\" | wc -c"));

        List<String> lines = result.output().lines().toList();
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).startsWith("/bin/sh -c eval").doesNotContain(secret);
        assertThat(lines.get(1)).isEqualTo("0");
        assertThat(lines.get(2).strip()).isEqualTo(String.valueOf(secret.length() + 1));
    }

    /** A process's argv as {@code /proc/PID/cmdline} gives it to anyone, its NULs turned into spaces. */
    private static String cmdline(ProcessHandle process) {
        try {
            return Files.readString(Path.of("/proc", String.valueOf(process.pid()), "cmdline")).replace('\0', ' ');
        } catch (IOException e) { // ended meanwhile
            return "";
        }
    }

    /** Waits until the command has {@code sleeps} sleep processes, and returns all its processes. */
    private Set<ProcessHandle> treeOnceSleeping(RunningCommand running, int sleeps) throws InterruptedException {
        ProcessHandle first = ProcessHandle.of(running.pid()).orElseThrow();
        Set<ProcessHandle> tree = Set.of();
        for (int i = 0; i < 500 && tree.stream().filter(CommandRunnerTest::isSleep).count() < sleeps; i++) {
            Thread.sleep(10);
            tree = first.descendants().collect(Collectors.toSet());
            seen.addAll(tree);
        }
        assertThat(tree).filteredOn(CommandRunnerTest::isSleep).hasSize(sleeps);
        return tree;
    }

    private static boolean isSleep(ProcessHandle process) {
        return process.info().command().filter(command -> command.endsWith("/sleep")).isPresent();
    }
}
