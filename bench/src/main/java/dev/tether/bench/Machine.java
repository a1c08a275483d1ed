package dev.tether.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** What the numbers were measured on: cores, memory, Java, OS and how busy the machine was. */
final class Machine {

    private Machine() {
    }

    static Map<String, Object> describe() {
        var m = new LinkedHashMap<String, Object>();
        m.put("cores", cores());
        m.put("memory", memory());
        m.put("java", System.getProperty("java.runtime.version") + " (" + System.getProperty("java.vm.name") + ")");
        m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"));
        m.put("kafka", org.apache.kafka.common.utils.AppInfoParser.getVersion());
        m.put("loadAverage", loadAverage());
        return m;
    }

    /** The 1, 5 and 15 minute load averages: the machine is shared, so a busy neighbour shows here. */
    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** The 1-minute load average, NaN where the system does not say. */
    static double load1() {
        try {
            return Double.parseDouble(loadAverage().split(" ")[0]);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    static int cores() {
        return Runtime.getRuntime().availableProcessors();
    }

    private static String memory() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    long kib = Long.parseLong(line.replaceAll("[^0-9]", ""));
                    return String.format(java.util.Locale.ROOT, "%.1f GiB", kib / 1024.0 / 1024.0);
                }
            }
        } catch (IOException | NumberFormatException e) {
            // fall through
        }
        return "unknown";
    }
}
