package dev.tether.cli.demo;

import dev.tether.cli.output.Output;
import dev.tether.client.Created;
import dev.tether.client.NewSession;
import dev.tether.client.SessionEvent;
import dev.tether.client.TetherClient;
import dev.tether.client.ToolMode;
import dev.tether.tools.sandbox.Isolation;
import dev.tether.tools.sandbox.RunnerConfig;
import dev.tether.tools.sandbox.Workspace;
import dev.tether.tools.sandbox.WorkspaceRoot;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tether demo}: the end-to-end demo the README's run command plays against the running stack.
 *
 * <p>A scripted agent ({@link DemoAgent}, a deterministic fake model) renames a method across two files of a small
 * workspace: it reads them, looks the task's ticket up with a tool its harness runs itself ({@code lookup_ticket}, a
 * harness-run tool), plans, edits one file under an approval a scripted approver ({@link ScriptedApprover})
 * grants for the session through the approval API, edits the other under that grant, and runs a check under a
 * one-off approval. Midway — right after asking for the second edit — its worker process is killed with SIGKILL; a
 * fresh worker process claims the session, prints the recovery report and finishes without repeating any effect,
 * passing through an interrupted turn and a context compaction. The demo then prints the timeline, the final
 * checkpoint, and checks that each edit happened exactly once. Exit 0 only if every check passes.
 */
@Command(name = "demo", description = "Play the end-to-end demo against the running stack.")
public final class DemoCommand implements Callable<Integer> {

    @Mixin
    DemoEndpoints endpoints;

    @Option(names = "--workspaces", defaultValue = "${env:TETHER_WORKSPACE_ROOT:-.tether/state/workspaces}",
            description = "The executor's workspace directory (default: ${DEFAULT-VALUE}).")
    Path workspaces;

    @Option(names = "--harness-version", defaultValue = "v1", description = "The harness version the demo's workers run.")
    String harnessVersion;

    @Spec
    CommandSpec spec;

    private final PrintStream out = System.out;
    private final List<Process> workers = new java.util.concurrent.CopyOnWriteArrayList<>();

    @Override
    public Integer call() throws Exception {
        endpoints.resolve(spec);
        // Ctrl-C ends the demo: no worker outlives it
        Runtime.getRuntime().addShutdownHook(new Thread(() -> workers.forEach(Process::destroyForcibly), "demo-stop-workers"));
        try (TetherClient agent = TetherClient.create(endpoints.options(DemoEndpoints.AGENT));
             TetherClient approvals = TetherClient.create(endpoints.options(DemoEndpoints.APPROVER))) {
            String sessionId = "demo-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
            Created session = agent.createSession(NewSession.of(
                            "Rename Greeter.greet to hello across src/ and keep check.sh green", "demo-model", ToolMode.WRITE)
                    .withSessionId(sessionId)
                    .withHarnessVersion(harnessVersion)
                    .withSystemPrompt("You are a careful engineer. Change only what the task needs.")
                    .withConstraints(List.of("touch only src/", "every edit is reviewed"))
                    .withHarnessTools(List.of(DemoAgent.LOOKUP_TICKET)))
                    .createdOrThrow();
            Path workspace = seed(sessionId);
            heading("session " + sessionId + " (harness " + session.harnessVersion() + "), workspace " + workspace);

            var approver = new ScriptedApprover(approvals, sessionId, out);
            Thread approverThread = new Thread(approver, "demo-approver");
            approverThread.setDaemon(true);
            approverThread.start();
            try {
                heading("worker-1 starts the task");
                Process first = startWorker(sessionId, "worker-1", true);
                CountDownLatch killPoint = pump(first, "worker-1");
                awaitKillPoint(killPoint, first);
                first.toHandle().destroyForcibly(); // SIGKILL; unlike Process.destroyForcibly, leaves what it printed last readable
                first.waitFor(30, TimeUnit.SECONDS);
                heading("SIGKILL worker-1 (pid " + first.pid() + ") while its edit of Main.java is in flight");

                heading("worker-2 takes the session over");
                Process second = startWorker(sessionId, "worker-2", false);
                pump(second, "worker-2");
                if (!second.waitFor(5, TimeUnit.MINUTES) || second.exitValue() != 0) {
                    throw new IllegalStateException("worker-2 did not finish the task (exit " + (second.isAlive() ? "none" : second.exitValue()) + ")");
                }
            } finally {
                approver.stop();
                workers.forEach(Process::destroyForcibly);
            }

            List<SessionEvent> events = agent.allEvents(sessionId).orElseThrow();
            heading("timeline");
            Reports.printTimeline(events, out);
            heading("final checkpoint");
            long lastSeq = events.get(events.size() - 1).seq();
            Reports.printCheckpoint(agent.checkpoint(sessionId, dev.tether.client.ReadAt.atLeast(lastSeq)).orElseThrow(), out);
            heading("checks");
            boolean passed = new DemoChecks(agent, sessionId, workspace, events, out).run();
            heading(passed ? "the demo passed" : "the demo FAILED");
            out.printf("browse it: bin/tether sessions show %s, bin/tether recovery %s, or%n"
                    + "  curl -H 'Authorization: Bearer dev-acme-agent' %s/v1/sessions/%s/events%n",
                    sessionId, sessionId, endpoints.sessions, sessionId);
            return passed ? 0 : 1;
        }
    }

    /**
     * Waits until worker-1 reaches the middle of the task; fails at once if it ends before (its output, printed above,
     * says why), rather than after the whole wait.
     */
    private static void awaitKillPoint(CountDownLatch killPoint, Process worker) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (!killPoint.await(1, TimeUnit.SECONDS)) {
            if (!worker.isAlive() && !killPoint.await(2, TimeUnit.SECONDS)) { // its last lines read first
                throw new IllegalStateException("worker-1 ended (exit " + worker.exitValue() + ") before the middle of the task; its"
                        + " output is above");
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("worker-1 did not reach the middle of the task within 5 minutes");
            }
        }
    }

    /** Creates the session's workspace as the executor would, with two source files and the check script. */
    private Path seed(String sessionId) throws IOException {
        var root = new WorkspaceRoot(workspaces, Isolation.detect(RunnerConfig.defaults()).commandUser());
        Workspace workspace = root.open("acme", sessionId); // the demo's agent is acme's
        write(workspace, DemoAgent.GREETER, """
                package demo;

                public class Greeter {
                    public String greet(String name) {
                        return "Hello, " + name + "!";
                    }
                }
                """);
        write(workspace, DemoAgent.MAIN, """
                package demo;

                public class Main {
                    public static void main(String[] args) {
                        System.out.println(new Greeter().greet("Tether"));
                    }
                }
                """);
        write(workspace, "check.sh", """
                #!/bin/sh
                # the rename is complete when no caller of greet( is left
                if grep -rn 'greet(' src; then echo "FAIL: greet( is still used"; exit 1; fi
                echo "OK: no greet( left; hello( appears $(grep -rh 'hello(' src | wc -l) times"
                """);
        return workspace.root();
    }

    private static void write(Workspace workspace, String path, String content) throws IOException {
        workspace.write(workspace.resolve(path), content.getBytes(StandardCharsets.UTF_8));
    }

    private Process startWorker(String sessionId, String workerId, boolean hangMidway) throws IOException {
        var command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx128m",
                "-cp", System.getProperty("java.class.path"), "dev.tether.cli.TetherCli", "demo-worker",
                "--session", sessionId, "--worker", workerId, "--harness-version", harnessVersion));
        command.addAll(List.of(endpoints.arguments()));
        if (hangMidway) {
            command.add("--hang-midway");
        }
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        workers.add(process);
        return process;
    }

    /** Copies the worker's output to ours, line by line; the latch opens when it reaches the kill point. */
    private CountDownLatch pump(Process process, String name) {
        var killPoint = new CountDownLatch(1);
        Thread pump = new Thread(() -> {
            try (var lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    out.println("[" + name + "] " + Output.printable(line));
                    if (line.contains(DemoAgent.KILL_POINT)) {
                        killPoint.countDown();
                    }
                }
            } catch (IOException e) {
                // the process died: its output ends here
            }
        }, "demo-" + name + "-output");
        pump.setDaemon(true);
        pump.start();
        return killPoint;
    }

    private void heading(String text) {
        out.println();
        out.println("== " + text);
    }
}
