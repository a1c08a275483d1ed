package dev.tether.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
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
        return nanosByThreadKind().getOrDefault(ThreadKind.STREAMS, 0L);
    }

    /** What a thread of a service's JVM does, told by its name. */
    enum ThreadKind {
        /** the Kafka Streams threads (named after the application id) */
        STREAMS,
        /** RocksDB's flushes ({@code rocksdb:high}) and compactions ({@code rocksdb:low}) */
        ROCKSDB,
        /** the JIT's C1 and C2 compiler threads */
        JIT,
        /** the garbage collector's threads */
        GC,
        /** everything else: HTTP, the clients' network threads, the JVM's own */
        OTHER
    }

    /**
     * CPU time used so far by the process's threads alive now, by {@link ThreadKind}, in nanoseconds
     * ({@code /proc/PID/task/TID/schedstat}). A thread that ended took its time with it.
     */
    Map<ThreadKind, Long> nanosByThreadKind() {
        Path tasks = Path.of("/proc", Long.toString(process().pid()), "task");
        var nanos = new EnumMap<ThreadKind, Long>(ThreadKind.class);
        try (Stream<Path> threads = Files.list(tasks)) {
            for (Path thread : threads.toList()) {
                try {
                    ThreadKind kind = kindOf(Files.readString(thread.resolve("comm")).strip());
                    nanos.merge(kind, Long.parseLong(Files.readString(thread.resolve("schedstat")).split(" ")[0]), Long::sum);
                } catch (IOException e) {
                    // the thread ended meanwhile
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return nanos;
    }

    private ThreadKind kindOf(String name) {
        if (name.startsWith(threadPrefix)) {
            return ThreadKind.STREAMS;
        } else if (name.startsWith("rocksdb:")) {
            return ThreadKind.ROCKSDB;
        } else if (name.contains("CompilerThre")) { // "C1 CompilerThre", "C2 CompilerThre" (cut at 15 bytes)
            return ThreadKind.JIT;
        } else if (name.startsWith("G1 ") || name.startsWith("GC Thread")) {
            return ThreadKind.GC;
        }
        return ThreadKind.OTHER;
    }

    private ProcessHandle process() {
        return ProcessHandle.current().descendants()
                .filter(p -> p.isAlive() && p.info().commandLine().map(c -> c.contains(jar)).orElse(false))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no running process of " + jar));
    }
}
