package dev.tether.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Figure 5, the pure part: runs the JMH benchmark {@code dev.tether.bench.fold.FoldBenchmark} in a child JVM
 * (JMH forks its own JVMs from there) and reads its JSON result.
 */
final class FoldJmh {

    /**
     * @param length      session length the fold starts at
     * @param nsPerEvent  JMH's score: average time of one fold step
     * @param error       JMH's 99.9 % confidence half-width
     * @param iterations  the measured iterations' scores
     */
    record Result(int length, double nsPerEvent, double error, List<Double> iterations) {
    }

    private final Path dir;

    FoldJmh(Path dir) {
        this.dir = dir;
    }

    List<Result> run(List<Integer> lengths, List<String> options) throws Exception {
        Files.createDirectories(dir);
        Path json = dir.resolve("fold-jmh.json");
        var command = new ArrayList<String>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m", "-cp",
                System.getProperty("java.class.path"), "org.openjdk.jmh.Main", "dev.tether.bench.fold.FoldBenchmark",
                "-p", "length=" + String.join(",", lengths.stream().map(String::valueOf).toList()),
                "-jvmArgs", "-Xmx1g", "-rf", "json", "-rff", json.toString()));
        command.addAll(options);
        Path log = dir.resolve("fold-jmh.log");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        try {
            if (!p.waitFor(15, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new IllegalStateException("JMH failed:\n" + Files.readString(log));
            }
        } finally {
            if (p.isAlive()) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
        }
        var results = new ArrayList<Result>();
        for (JsonNode run : new ObjectMapper().readTree(json.toFile())) {
            JsonNode metric = run.get("primaryMetric");
            var iterations = new ArrayList<Double>();
            for (JsonNode fork : metric.get("rawData")) {
                fork.forEach(v -> iterations.add(v.asDouble()));
            }
            double error = metric.get("scoreError").asDouble();
            results.add(new Result(run.at("/params/length").asInt(), metric.get("score").asDouble(), Double.isNaN(error) ? 0 : error, iterations));
        }
        return results;
    }
}
