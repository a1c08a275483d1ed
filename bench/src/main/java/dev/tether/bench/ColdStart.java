package dev.tether.bench;

import dev.tether.testing.Ports;
import dev.tether.testing.ServiceProcess;
import dev.tether.testing.TetherStack;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Figure 9: {@code bin/run --no-demo} as a user runs it, the jars built and the Maven cache warm: the time
 * from the command until all four services answer {@code /q/health/ready}. It runs in its own directory
 * ({@code TETHER_HOME}) on free loopback ports, so it starts its own broker and registry beside the
 * benchmark's; {@code bin/run stop} then stops everything by the PIDs it recorded, and the script itself
 * is stopped by its PID if it outstays that.
 */
final class ColdStart {

    /**
     * @param allHealthyMs  from the command until the last of the four services was ready
     * @param readyMs       per service, from the command until it was ready
     * @param built         whether bin/run built anything first (then the figure is not a warm start)
     */
    record Run(double allHealthyMs, Map<String, Double> readyMs, boolean built) {
    }

    private static final List<String> SERVICES = List.of("session-service", "projector-service", "approval-service", "tool-executor");
    private static final List<String> PORT_VARIABLES = List.of("TETHER_SESSION_SERVICE_PORT", "TETHER_PROJECTOR_SERVICE_PORT",
            "TETHER_APPROVAL_SERVICE_PORT", "TETHER_TOOL_EXECUTOR_PORT");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    Run measure(Path root, Path dir) throws Exception {
        Files.createDirectories(dir);
        Map<String, String> env = new LinkedHashMap<>();
        env.put("TETHER_HOME", dir.resolve("home").toString());
        List<Integer> ports = new ArrayList<>();
        for (String variable : PORT_VARIABLES) {
            int port = Ports.free();
            ports.add(port);
            env.put(variable, Integer.toString(port));
        }
        for (String variable : List.of("TETHER_KAFKA_PORT", "TETHER_KAFKA_CONTROLLER_PORT", "TETHER_REGISTRY_PORT",
                "TETHER_REGISTRY_MANAGEMENT_PORT")) {
            env.put(variable, Integer.toString(Ports.free()));
        }
        // in the build's smoke run, the broker, the registry and the services start as the tests' own do (C1 alone, the
        // serial collector, class-data archives for the broker and registry): that run checks the figure's code, not its
        // speed; outside the build (bench/run) these are empty, and bin/run starts everything as a user's does
        env.putAll(TetherStack.launcherEnvironment());
        env.put("TETHER_SERVICE_JVM_OPTS", String.join(" ", ServiceProcess.jvmOptions()));
        Path log = dir.resolve("bin-run.log");
        var builder = new ProcessBuilder("bash", root.resolve("bin/run").toString(), "--no-demo").directory(root.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        builder.environment().putAll(env);
        long t0 = System.nanoTime();
        Process run = builder.start();
        try {
            var ready = new LinkedHashMap<String, Double>();
            long deadline = t0 + TimeUnit.MINUTES.toNanos(5);
            while (ready.size() < SERVICES.size()) {
                if (!run.isAlive()) {
                    throw new IllegalStateException("bin/run exited (" + run.exitValue() + ") before all services were ready:\n" + Files.readString(log));
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("not all services ready within 5 minutes:\n" + Files.readString(log));
                }
                for (int i = 0; i < SERVICES.size(); i++) {
                    if (!ready.containsKey(SERVICES.get(i)) && healthy(ports.get(i))) {
                        ready.put(SERVICES.get(i), (System.nanoTime() - t0) / 1e6);
                    }
                }
                Thread.sleep(100);
            }
            double all = (System.nanoTime() - t0) / 1e6;
            boolean built = Files.readString(log).contains("building Tether");
            return new Run(all, ready, built);
        } finally {
            stop(root, env, run);
        }
    }

    /** {@code bin/run stop} (by the PIDs bin/run recorded); then bin/run itself, by its PID, if it is still there. */
    private static void stop(Path root, Map<String, String> env, Process run) throws IOException, InterruptedException {
        var stop = new ProcessBuilder("bash", root.resolve("bin/run").toString(), "stop").directory(root.toFile())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        stop.environment().putAll(env);
        Process stopping = stop.start();
        if (!stopping.waitFor(2, TimeUnit.MINUTES)) {
            stopping.destroyForcibly();
        }
        if (!run.waitFor(30, TimeUnit.SECONDS)) {
            run.destroy(); // SIGTERM: its trap stops whatever it still runs
            if (!run.waitFor(90, TimeUnit.SECONDS)) {
                run.descendants().forEach(ProcessHandle::destroyForcibly);
                run.destroyForcibly();
            }
        }
    }

    private boolean healthy(int port) {
        try {
            var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/q/health/ready")).timeout(Duration.ofSeconds(2)).build();
            return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
