package dev.tether.bench;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The CPU time a service process (a child of this JVM, found by the jar on its command line) has used so
 * far: user plus system, as the kernel counts it. A fresh lookup per call, so a restarted service is found again.
 */
final class ServiceCpu {

    private final String jar;

    ServiceCpu(Path moduleDir) {
        this.jar = moduleDir.resolve("target/quarkus-app/quarkus-run.jar").toString();
    }

    /** CPU time used by the running process, in nanoseconds. */
    long nanos() {
        ProcessHandle process = ProcessHandle.current().descendants()
                .filter(p -> p.isAlive() && p.info().commandLine().map(c -> c.contains(jar)).orElse(false))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no running process of " + jar));
        return process.info().totalCpuDuration().map(Duration::toNanos)
                .orElseThrow(() -> new IllegalStateException("the CPU time of " + jar + " cannot be read"));
    }
}
