package dev.tether.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The raw ceiling of the broker: Kafka's own {@code ProducerPerformance} and {@code ConsumerPerformance}
 * (kafka-tools), each run as a child JVM on this JVM's classpath, stopped by its PID if it overstays.
 */
final class RawCeiling {

    /** One ProducerPerformance run: its summary line. */
    record Produced(long records, double recordsPerSec, double mbPerSec, double avgLatencyMs, double p50Ms, double p99Ms) {
    }

    /** One ConsumerPerformance run: the whole run, and the fetch phase without the group join. */
    record Consumed(long records, double mb, double recordsPerSec, double fetchRecordsPerSec, double fetchMbPerSec) {
    }

    private static final Pattern PRODUCED = Pattern.compile(
            "(\\d+) records sent, ([\\d.]+) records/sec \\(([\\d.]+) MB/sec\\), ([\\d.]+) ms avg latency, [\\d.]+ ms max latency, "
                    + "(\\d+) ms 50th, \\d+ ms 95th, (\\d+) ms 99th");

    private final String bootstrap;
    private final Path logDir;

    RawCeiling(String bootstrap, Path logDir) {
        this.bootstrap = bootstrap;
        this.logDir = logDir;
    }

    /** Produces {@code records} records of {@code recordSize} bytes to {@code topic}, as fast as it can, with acks=all. */
    Produced produce(String topic, long records, int recordSize) {
        String out = run("producer-performance", List.of("org.apache.kafka.tools.ProducerPerformance",
                "--topic", topic, "--num-records", Long.toString(records), "--record-size", Integer.toString(recordSize),
                "--throughput", "-1", "--producer-props", "bootstrap.servers=" + bootstrap, "acks=all"));
        Matcher m = null;
        for (String line : out.split("\n")) {
            Matcher candidate = PRODUCED.matcher(line);
            if (candidate.find()) {
                m = candidate; // the last summary line is the whole run's
            }
        }
        if (m == null) {
            throw new IllegalStateException("ProducerPerformance printed no summary:\n" + out);
        }
        return new Produced(Long.parseLong(m.group(1)), Double.parseDouble(m.group(2)), Double.parseDouble(m.group(3)),
                Double.parseDouble(m.group(4)), Double.parseDouble(m.group(5)), Double.parseDouble(m.group(6)));
    }

    /** Consumes {@code records} records of {@code topic} from the beginning, in a fresh group. */
    Consumed consume(String topic, long records) {
        String out = run("consumer-performance", List.of("org.apache.kafka.tools.ConsumerPerformance",
                "--bootstrap-server", bootstrap, "--topic", topic, "--messages", Long.toString(records),
                "--group", "bench-raw-consume-" + System.nanoTime(), "--timeout", "60000", "--hide-header"));
        // start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms,
        // fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
        for (String line : out.split("\n")) {
            String[] f = line.split(",\\s*");
            if (f.length == 10) {
                try {
                    return new Consumed(Long.parseLong(f[4].trim()), Double.parseDouble(f[2]), Double.parseDouble(f[5]),
                            Double.parseDouble(f[9]), Double.parseDouble(f[8]));
                } catch (NumberFormatException e) {
                    // the header or a warning: keep looking
                }
            }
        }
        throw new IllegalStateException("ConsumerPerformance printed no result:\n" + out);
    }

    private String run(String name, List<String> mainAndArgs) {
        var command = new ArrayList<String>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx512m");
        command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.addAll(mainAndArgs);
        Path err = logDir.resolve(name + ".log");
        try {
            Path outFile = Files.createTempFile(logDir, name, ".out");
            Process p = new ProcessBuilder(command).redirectOutput(outFile.toFile())
                    .redirectError(ProcessBuilder.Redirect.appendTo(err.toFile()))
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
            try {
                boolean exited = p.waitFor(5, TimeUnit.MINUTES);
                String out = Files.readString(outFile, StandardCharsets.UTF_8);
                if (!exited || p.exitValue() != 0) {
                    throw new IllegalStateException(name + " failed (" + (exited ? "exit " + p.exitValue() : "timed out") + "):\n"
                            + out + "\n" + Files.readString(err));
                }
                return out;
            } finally {
                if (p.isAlive()) {
                    p.destroyForcibly();
                    p.waitFor(30, TimeUnit.SECONDS);
                }
                Files.deleteIfExists(outFile);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
