package dev.tether.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The results of one run: the machine, the settings, every repetition, medians, ranges and ratios to the raw ceiling. */
final class Report {

    static final String README_START = "<!-- bench-results:start -->";
    static final String README_END = "<!-- bench-results:end -->";

    private final BenchSettings settings;
    private final Instant started;
    private final Map<String, Object> root = new LinkedHashMap<>();
    private final Map<String, Object> figures = new LinkedHashMap<>();
    private final Map<String, Object> info = new LinkedHashMap<>();
    private final StringBuilder rows = new StringBuilder();
    private Samples rawProduce;
    private Samples rawConsumeFetch;

    Report(BenchSettings settings, Instant started) {
        this.settings = settings;
        this.started = started;
        root.put("started", started.toString());
        root.put("profile", settings.profile());
        root.put("machine", Machine.describe());
        root.put("settings", settings);
        root.put("serviceSettings", new java.util.TreeMap<>(Bench.SERVICE_SETTINGS));
        root.put("figures", figures);
        root.put("info", info);
    }

    void rawProduce(List<RawCeiling.Produced> runs) {
        rawProduce = Samples.of(runs.stream().map(RawCeiling.Produced::recordsPerSec).toList());
        figures.put("1_raw_produce", Map.of("runs", runs, "recordsPerSec", summary(rawProduce)));
        row("1 raw produce (ProducerPerformance, acks=all, 1 KiB)", rawProduce, "rec/s", null, "ceiling");
    }

    void appendThroughput(List<AppendLoad.Throughput> runs) {
        Samples eps = Samples.of(runs.stream().map(AppendLoad.Throughput::eventsPerSec).toList());
        Samples ratio = eps.ratioTo(rawProduce);
        figures.put("2_append_throughput", Map.of("runs", runs, "eventsPerSec", summary(eps), "ratioToRawProduce", summary(ratio),
                "target", "ratio >= 0.5"));
        row("2 append throughput (SDK, %d sessions, batches of %d)".formatted(settings.sessions(), settings.batch()), eps,
                "events/s", ratio, "≥ 0.5");
    }

    void appendLatency(AppendLoad.Latency run) {
        figures.put("3_append_latency", Map.of("run", run, "target", "p50 <= 25 ms, p99 <= 100 ms"));
        rows.append(String.format(Locale.ROOT, "| 3 append latency (%d/s single events over %d sessions) | p50 %.1f ms, p99 %.1f ms, max %.0f ms (achieved %.0f/s, %d failed) | — | p50 ≤ 25 ms, p99 ≤ 100 ms |%n",
                run.targetRate(), settings.latencySessions(), run.p50Ms(), run.p99Ms(), run.maxMs(), run.achievedRate(), run.failures()));
    }

    void rawConsume(RawCeiling.Consumed run) {
        rawConsumeFetch = Samples.of(List.of(run.fetchRecordsPerSec()));
        figures.put("1_raw_consume", Map.of("run", run));
        row("1 raw consume (ConsumerPerformance, fetch phase)", rawConsumeFetch, "rec/s", null, "ceiling");
    }

    void projection(ProjectionCatchUp.CatchUp run, long eventRecords) {
        Samples eps = Samples.of(List.of(run.eventsPerSec()));
        Samples ratio = eps.ratioTo(rawConsumeFetch);
        figures.put("4_projection_throughput", Map.of("run", run, "sessionEventsRecords", eventRecords, "ratioToRawConsume",
                summary(ratio), "target", "ratio >= 0.5"));
        row("4 projection throughput (projector catching up on %d events)".formatted(eventRecords), eps, "events/s", ratio, "≥ 0.5");
    }

    void info(String name, Object value) {
        info.put(name, value);
    }

    void finished(Instant at) {
        root.put("finished", at.toString());
        root.put("loadAverageAtEnd", Machine.loadAverage());
    }

    Path writeJson(Path dir) throws IOException {
        Files.createDirectories(dir);
        String name = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HHmm'Z'").withZone(ZoneOffset.UTC).format(started)
                + (settings.profile().equals("full") ? "" : "-" + settings.profile()) + ".json";
        Path file = dir.resolve(name);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), root);
        return file;
    }

    String markdown() {
        @SuppressWarnings("unchecked")
        var machine = (Map<String, Object>) root.get("machine");
        return "Run of " + started + " (" + settings.profile() + ", " + settings.repetitions() + " repetitions; median [min–max]); "
                + machine.get("cores") + " cores, " + machine.get("memory") + ", Java " + machine.get("java")
                + ", load average at start " + machine.get("loadAverage") + ".\n\n"
                + "| figure | result | ratio to raw | target |\n|---|---|---|---|\n" + rows
                + info.entrySet().stream().map(e -> String.format(Locale.ROOT, "| %s | %s | | |%n", e.getKey(), format(e.getValue())))
                        .reduce("", String::concat);
    }

    /** Replaces the table between the README's markers with this run's. */
    void updateReadme(Path readme, String jsonName) throws IOException {
        String text = Files.readString(readme);
        int start = text.indexOf(README_START);
        int end = text.indexOf(README_END);
        if (start < 0 || end < start) {
            throw new IllegalStateException(readme + " has no " + README_START + " … " + README_END + " markers");
        }
        String table = README_START + "\n" + markdown() + "\nAll numbers: [results/" + jsonName + "](results/" + jsonName + ").\n";
        Files.writeString(readme, text.substring(0, start) + table + text.substring(end));
    }

    private void row(String figure, Samples values, String unit, Samples ratio, String target) {
        rows.append("| ").append(figure).append(" | ").append(range(values, "%.0f")).append(' ').append(unit).append(" | ")
                .append(ratio == null ? "—" : range(ratio, "%.2f")).append(" | ").append(target).append(" |\n");
    }

    private static String range(Samples s, String format) {
        String median = String.format(Locale.ROOT, format, s.median());
        return s.values().size() == 1 ? median
                : median + " [" + String.format(Locale.ROOT, format, s.min()) + "–" + String.format(Locale.ROOT, format, s.max()) + "]";
    }

    private static String format(Object value) {
        return value instanceof Double d ? String.format(Locale.ROOT, "%.0f", d) : String.valueOf(value);
    }

    private static Map<String, Object> summary(Samples s) {
        var m = new LinkedHashMap<String, Object>();
        m.put("median", s.median());
        m.put("min", s.min());
        m.put("max", s.max());
        m.put("values", s.values());
        return m;
    }
}
