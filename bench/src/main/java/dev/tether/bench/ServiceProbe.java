package dev.tether.bench;

import dev.tether.testing.ServiceProcess;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/** What the soaks read from a packaged service: its live heap after a forced full GC, its {@code /q/metrics}, the load. */
final class ServiceProbe {

    /** The old generation: a full GC leaves every live object there, and what is allocated after it goes elsewhere. */
    private static final Pattern HEAP = Pattern.compile("^jvm_memory_used_bytes\\{[^}]*area=\"heap\",id=\"[^\"]*(Old|Tenured) Gen\"[^}]*} ([0-9.E+-]+)$",
            Pattern.MULTILINE);
    private static final Pattern LAG = Pattern.compile("^tether_streams_store_lag_records(\\{[^}]*})? ([0-9.E+-]+)$", Pattern.MULTILINE);
    /** At most a marker per store partition, and a batch in flight: far below what a restore from scratch reads. */
    private static final double RESTORED_LAG = 100;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private ServiceProbe() {
    }

    /** Forces a full GC in the service ({@code jcmd GC.run}, twice), then reads its old generation in use from {@code /q/metrics}, in MiB. */
    static double liveHeapAfterFullGc(ServiceProcess service) throws Exception {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        for (int i = 0; i < 2; i++) {
            var gc = new ProcessBuilder(jcmd.toString(), Long.toString(service.pid()), "GC.run").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!gc.waitFor(60, TimeUnit.SECONDS)) {
                gc.destroyForcibly();
                throw new IllegalStateException("jcmd GC.run did not return within 60 s");
            }
        }
        var matcher = HEAP.matcher(metrics(service));
        double bytes = 0;
        while (matcher.find()) {
            bytes += Double.parseDouble(matcher.group(2));
        }
        return bytes / (1024 * 1024);
    }

    /**
     * Waits until the service's stores (active, warm-up and standby) are within {@link #RESTORED_LAG} records of their
     * changelogs' ends ({@code tether_streams_store_lag_records}), twice in a row: nothing is written meanwhile, and an
     * exactly-once changelog ends in a transaction marker, which a restored store never reads, so a restored instance's
     * lag is a few records, not 0.
     */
    static void awaitStoresRestored(ServiceProcess service, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        int restored = 0;
        while (restored < 2) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the stores of " + service.baseUrl() + " did not catch up within " + timeout);
            }
            var matcher = LAG.matcher(metrics(service));
            double lag = matcher.find() ? Double.parseDouble(matcher.group(2)) : Double.NaN;
            restored = lag <= RESTORED_LAG ? restored + 1 : 0;
            Thread.sleep(500);
        }
    }

    /** The service's {@code /q/metrics}, in the Prometheus text format. */
    static String metrics(ServiceProcess service) throws IOException, InterruptedException {
        var request = HttpRequest.newBuilder(URI.create(service.baseUrl() + "/q/metrics")).timeout(Duration.ofSeconds(10)).build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString()).body();
    }

    /** The one-minute load average, as {@code uptime} shows it. */
    static String load() {
        return String.format(Locale.ROOT, "%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
}
