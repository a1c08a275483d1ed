package dev.tether.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

/**
 * The CPU time a service process (a child of this JVM, found by the jar on its command line) has used so
 * far, as the kernel counts it: the whole process (user plus system), or only its Kafka Streams threads.
 * A fresh lookup per call, so a restarted service is found again.
 */
final class ServiceCpu {

    private final String jar;
    private final String threadPrefix;

    /**
     * @param moduleDir the service module (its packaged jar identifies the process)
     * @param appId     its Kafka Streams application id: the stream threads' names start with it
     */
    ServiceCpu(Path moduleDir, String appId) {
        this.jar = moduleDir.resolve("target/quarkus-app/quarkus-run.jar").toString();
        // Linux keeps the first 15 bytes of a thread's name; the Streams threads (StreamThread-n, and the
        // StateUpdater and CleanupThread, idle once restored) all start with the application id
        this.threadPrefix = appId.substring(0, Math.min(15, appId.length()));
    }

    /** CPU time used by the whole process, in nanoseconds. */
    long nanos() {
        return process().info().totalCpuDuration().map(Duration::toNanos)
                .orElseThrow(() -> new IllegalStateException("the CPU time of " + jar + " cannot be read"));
    }

    /**
     * CPU time used by the process's Kafka Streams threads, in nanoseconds ({@code /proc/PID/task/TID/schedstat}):
     * the processing itself, without the HTTP threads, the producer's and consumer's network threads, GC and JIT.
     */
    long streamThreadNanos() {
        Path tasks = Path.of("/proc", Long.toString(process().pid()), "task");
        long sum = 0;
        try (Stream<Path> threads = Files.list(tasks)) {
            for (Path thread : threads.toList()) {
                try {
                    if (Files.readString(thread.resolve("comm")).startsWith(threadPrefix)) {
                        sum += Long.parseLong(Files.readString(thread.resolve("schedstat")).split(" ")[0]);
                    }
                } catch (IOException e) {
                    // the thread ended meanwhile
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return sum;
    }

    private ProcessHandle process() {
        return ProcessHandle.current().descendants()
                .filter(p -> p.isAlive() && p.info().commandLine().map(c -> c.contains(jar)).orElse(false))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no running process of " + jar));
    }
}
