package dev.tether.reliability;

import dev.tether.testing.ServiceProcess;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Seeded faults: until told to stop, waits a random pause, SIGKILLs one of the services, waits a random delay and
 * starts it again (same port, state directory and workspace). The same seed picks the same victims and delays; the
 * timing of the sessions around them is not deterministic. Runs on its own thread; {@link #stop()} lets the fault in
 * progress finish (the victim is restarted) before it returns.
 */
final class FaultInjector implements Runnable {

    /** One injected fault, as printed and checked. */
    record Fault(int number, Instant at, String service, long downMillis, long restartMillis, String error) {
    }

    private final Map<String, ServiceProcess> services;
    private final Random random;
    private final Duration pauseMin;
    private final Duration pauseMax;
    private final List<Fault> faults = new ArrayList<>();
    private volatile boolean running = true;

    FaultInjector(Map<String, ServiceProcess> services, long seed, Duration pauseMin, Duration pauseMax) {
        this.services = new LinkedHashMap<>(services);
        this.random = new Random(seed);
        this.pauseMin = pauseMin;
        this.pauseMax = pauseMax;
    }

    void stop() {
        running = false;
    }

    synchronized List<Fault> faults() {
        return List.copyOf(faults);
    }

    @Override
    public void run() {
        var names = new ArrayList<>(services.keySet());
        while (running) {
            long pauseEnd = System.nanoTime() + between(pauseMin.toMillis(), pauseMax.toMillis()) * 1_000_000;
            while (running && System.nanoTime() < pauseEnd) {
                if (!sleep(100)) {
                    return;
                }
            }
            if (!running) {
                return;
            }
            String name = names.get(random.nextInt(names.size()));
            long down = between(0, 8_000);
            ServiceProcess victim = services.get(name);
            Instant at = Instant.now();
            victim.kill(); // SIGKILL
            sleep(down);
            long t0 = System.nanoTime();
            String error = "";
            try {
                victim.start();
            } catch (RuntimeException e) {
                error = e.getMessage();
            }
            var fault = new Fault(faults.size() + 1, at, name, down, (System.nanoTime() - t0) / 1_000_000, error);
            synchronized (this) {
                faults.add(fault);
            }
            System.out.printf("[fault %d] SIGKILL %s, down %d ms, restart to ready %d ms%s%n", fault.number(), name, down,
                    fault.restartMillis(), error.isEmpty() ? "" : ", RESTART FAILED: " + error);
        }
    }

    private long between(long min, long max) {
        return min + (long) (random.nextDouble() * (max - min));
    }

    private static boolean sleep(long millis) {
        try {
            Thread.sleep(millis);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
