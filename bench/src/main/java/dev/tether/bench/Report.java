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
    /** The pure fold's rows, measured first but shown with the other rows of figure 5. */
    private String foldRows = "";
    /** Figure 8's top-up, if the run wrote one. */
    private Map<String, Object> topUp;

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

    void fold(List<FoldJmh.Result> runs, List<FoldCpu.Result> cpu) {
        double first = runs.get(0).nsPerEvent();
        double last = runs.get(runs.size() - 1).nsPerEvent();
        double cpuFirst = cpu.get(0).nsPerEvent();
        double cpuLast = cpu.get(cpu.size() - 1).nsPerEvent();
        figures.put("5_fold_jmh", Map.of("runs", runs, "lastToFirst", last / first, "target", "lastToFirst <= 1.2"));
        figures.put("5_fold_cpu", Map.of("runs", cpu, "lastToFirst", cpuLast / cpuFirst, "target", "lastToFirst <= 1.2"));
        StringBuilder cells = new StringBuilder();
        for (FoldJmh.Result r : runs) {
            cells.append(cells.isEmpty() ? "" : ", ").append(String.format(Locale.ROOT, "%s: %.0f ± %.0f ns", lengthName(r.length()), r.nsPerEvent(), r.error()));
        }
        StringBuilder cpuCells = new StringBuilder();
        for (FoldCpu.Result r : cpu) {
            cpuCells.append(cpuCells.isEmpty() ? "" : ", ").append(String.format(Locale.ROOT, "%s: %.0f [%.0f–%.0f] ns", lengthName(r.length()),
                    r.nsPerEvent(), r.minNs(), r.maxNs()));
        }
        String target = "≤ 1.2 (" + lengthName(runs.get(runs.size() - 1).length()) + " vs " + lengthName(runs.get(0).length()) + ")";
        foldRows = String.format(Locale.ROOT, "| 5 fold per event, pure (JMH, wall time, at session length) | %s | %.2f | %s |%n", cells, last / first, target)
                + String.format(Locale.ROOT, "| 5 fold per event, pure (thread CPU time, %d windows of 1,000) | %s | %.2f | %s |%n",
                        cpu.get(0).windows(), cpuCells, cpuLast / cpuFirst, target);
    }

    void constantCost(List<ConstantCost.AtLength> lengths) {
        ConstantCost.AtLength first = lengths.get(0);
        ConstantCost.AtLength last = lengths.get(lengths.size() - 1);
        double cpuRatio = last.projectorCpu().median() / first.projectorCpu().median();
        double bytesRatio = last.storeBytes().median() / first.storeBytes().median();
        var byLength = new LinkedHashMap<String, Object>();
        for (ConstantCost.AtLength l : lengths) {
            byLength.put(Integer.toString(l.length()), Map.of("windows", l.windows(), "projectorStreamMicrosPerEvent", summary(l.projectorCpu()),
                    "projectorStoreBytesPerEvent", summary(l.storeBytes())));
        }
        figures.put("5_constant_cost", Map.of("byLength", byLength, "cpuLastToFirst", cpuRatio, "storeBytesLastToFirst", bytesRatio,
                "target", "lastToFirst <= 1.2"));
        StringBuilder cpu = new StringBuilder();
        StringBuilder bytes = new StringBuilder();
        for (ConstantCost.AtLength l : lengths) {
            cpu.append(cpu.isEmpty() ? "" : ", ").append(lengthName(l.length())).append(": ").append(range(l.projectorCpu(), "%.0f")).append(" µs");
            bytes.append(bytes.isEmpty() ? "" : ", ").append(lengthName(l.length())).append(": ").append(range(l.storeBytes(), "%.0f")).append(" B");
        }
        String target = "≤ 1.2 (" + lengthName(last.length()) + " vs " + lengthName(first.length()) + ")";
        rows.append(foldRows);
        rows.append(String.format(Locale.ROOT, "| 5 projector CPU per event, end to end (its Kafka Streams threads, %d-event windows) | %s | %.2f | %s |%n",
                first.windows().get(0).events(), cpu, cpuRatio, target));
        rows.append(String.format(Locale.ROOT, "| 5 projector store bytes written per event (changelogs, checkpoints) | %s | %.2f | %s |%n",
                bytes, bytesRatio, target));
    }

    void amplification(List<Amplification.Run> runs) {
        double flat = runs.get(runs.size() - 1).ratio() / runs.get(0).ratio();
        figures.put("6_storage_amplification", Map.of("runs", runs, "lastToFirst", flat, "target", "ratio <= 3, flat in session length"));
        StringBuilder cells = new StringBuilder();
        for (Amplification.Run r : runs) {
            cells.append(cells.isEmpty() ? "" : ", ").append(String.format(Locale.ROOT, "%,d turns: %.2f (%.2f without commands)", r.turns(),
                    r.ratio(), r.ratioWithoutCommands()));
        }
        rows.append(String.format(Locale.ROOT, "| 6 bytes stored per payload byte (all topics, before compaction) | %s | %.2f (long/short) | ≤ 3, flat |%n",
                cells, flat));
    }

    void resume(List<Resume.Run> runs) {
        figures.put("7_resume_latency", Map.of("runs", runs, "target", "p99 <= 100 ms"));
        for (Resume.Run run : runs) {
            rows.append(String.format(Locale.ROOT, "| 7 resume: claim + recovery + context, session of %,d events%s (%d rounds) | p50 %.1f ms, p99 %.1f ms (claim %.1f, recovery %.1f, context %.1f ms at p50; context %,d chars) | — | p99 ≤ 100 ms |%n",
                    run.sessionLength(), run.compacted() ? ", compacted but for the last " + Resume.AFTER_COMPACTION : ", never compacted",
                    run.rounds(), run.p50Ms(), run.p99Ms(), run.claimP50Ms(), run.recoveryP50Ms(), run.contextP50Ms(), run.contextChars()));
        }
    }

    /** Figure 8's top-up, written straight into {@code session-events} ({@link EventTopUp}); reported with the recovery. */
    void recoveryTopUp(EventTopUp.Written written, double foldSeconds, int projectorWarnings) {
        var m = new LinkedHashMap<String, Object>();
        m.put("events", written.events());
        m.put("sessions", written.sessions().size());
        m.put("writeSeconds", written.seconds());
        m.put("writeEventsPerSec", written.eventsPerSec());
        m.put("projectorCaughtUpSecondsAfterWrite", foldSeconds);
        m.put("projectorWarnLines", projectorWarnings);
        topUp = m;
    }

    void recovery(Recovery.Run run) {
        var m = new LinkedHashMap<String, Object>();
        m.put("run", run);
        if (topUp != null) {
            m.put("topUp", topUp);
        }
        figures.put("8_recovery", m);
        rows.append(String.format(Locale.ROOT, "| 8 projector SIGKILLed holding %,d events in %,d sessions%s: until it serves again | %.1f s (ready after %.1f s) | — | — |%n",
                run.events(), run.sessions(), topUp == null ? "" : String.format(Locale.ROOT, " (%,d of them in %,d sessions written straight to session-events)",
                        (Long) topUp.get("events"), (Integer) topUp.get("sessions")),
                run.killToServingMs() / 1e3, run.killToReadyMs() / 1e3));
        rows.append(String.format(Locale.ROOT, "| 8 the same from an empty local state | %.1f s (%.0f events/s) | — | — |%n",
                run.emptyStateToServingMs() / 1e3, run.emptyStateEventsPerSec()));
    }

    void coldStart(ColdStart.Run run) {
        figures.put("9_cold_start", Map.of("run", run));
        rows.append(String.format(Locale.ROOT, "| 9 cold start: `bin/run --no-demo` until all four services are ready%s | %.1f s | — | — |%n",
                run.built() ? " (it built first!)" : ", built, warm Maven cache", run.allHealthyMs() / 1e3));
    }

    private static String lengthName(int length) {
        return length % 1000 == 0 ? (length / 1000) + "k" : Integer.toString(length);
    }

    void info(String name, Object value) {
        info.put(name, value);
    }

    Report finished(Instant at) {
        root.put("finished", at.toString());
        root.put("loadAverageAtEnd", Machine.loadAverage());
        return this;
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
                + "| figure | result | ratio (to raw; in 5 and 6 longest to shortest) | target |\n|---|---|---|---|\n" + rows
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
