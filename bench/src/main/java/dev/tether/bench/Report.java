package dev.tether.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.tether.kit.kafka.RestoreLog;
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
import java.util.stream.Collectors;

/** The results of one run: the machine, the settings, every repetition, medians, ranges and ratios to the raw ceiling. */
final class Report {

    static final String README_START = "<!-- bench-results:start -->";
    static final String README_END = "<!-- bench-results:end -->";

    private final BenchSettings settings;
    private final Instant started;
    /** The 1-minute load average when the run started (the machine's description gives all three). */
    private final double loadAtRunStart;
    private final Map<String, Object> root = new LinkedHashMap<>();
    private final Map<String, Object> figures = new LinkedHashMap<>();
    private final Map<String, Object> info = new LinkedHashMap<>();
    private final StringBuilder rows = new StringBuilder();
    /** Where the cold catch-up's row ends: the warm one, measured later, is shown there. */
    private int projectionRowsEnd;
    /** The 1-minute load average when each figure started ({@link #starting}), by figure key. */
    private final Map<String, Double> loadAtStart = new java.util.HashMap<>();
    /** The 1-minute load average when each figure's result was reported, by figure key. */
    private final Map<String, Double> loadAtEnd = new java.util.HashMap<>();
    /** Whether any figure was taken at a load above the core count. */
    private boolean anyBusy;
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
        loadAtRunStart = Machine.load1();
        root.put("settings", settings);
        root.put("serviceSettings", Bench.SERVICE_SETTINGS);
        root.put("figures", figures);
        root.put("info", info);
    }

    /**
     * Notes the load average as the figures {@code keys} start; their results record it with the load when they are
     * reported, and mark the figure busy when either is above the core count (figures 1 and 2, measured interleaved,
     * share one window).
     */
    void starting(String... keys) {
        double now = Machine.load1();
        for (String key : keys) {
            loadAtStart.put(key, now);
        }
    }

    /**
     * Notes the load average as the figures {@code keys} end, for figures reported later than they were measured (figure
     * 4's, which wait for the raw consume measured after them).
     */
    void ended(String... keys) {
        double now = Machine.load1();
        for (String key : keys) {
            loadAtEnd.put(key, now);
        }
    }

    /** The figure's entry in the JSON, with its load window: its end noted by {@link #ended}, or else the load now. */
    private void figure(String key, Map<String, Object> values) {
        double start = loadAtStart.getOrDefault(key, Double.NaN);
        double end = loadAtEnd.containsKey(key) ? loadAtEnd.get(key) : Machine.load1();
        var load = new LinkedHashMap<String, Object>();
        load.put("start", start);
        load.put("end", end);
        load.put("cores", Machine.cores());
        load.put("aboveCores", busy(start, end));
        loadAtEnd.put(key, end);
        var m = new LinkedHashMap<String, Object>(values);
        m.put("load", load);
        figures.put(key, m);
    }

    private static boolean busy(double start, double end) {
        return start > Machine.cores() || end > Machine.cores();
    }

    /**
     * The table's load cell of a figure already reported ({@link #figure}): the 1-minute load average at its start and
     * end, as in the JSON, marked when above the cores.
     */
    private String loadCell(String key) {
        double start = loadAtStart.getOrDefault(key, Double.NaN);
        double end = loadAtEnd.getOrDefault(key, Double.NaN);
        boolean busy = busy(start, end);
        anyBusy |= busy;
        return String.format(Locale.ROOT, "%.1f–%.1f%s", start, end, busy ? " ⚠" : "");
    }

    void rawProduce(List<RawCeiling.Produced> runs) {
        rawProduce = Samples.of(runs.stream().map(RawCeiling.Produced::recordsPerSec).toList());
        figure("1_raw_produce", Map.of("runs", runs, "recordsPerSec", summary(rawProduce)));
        row("1_raw_produce", "1 raw produce (ProducerPerformance, acks=all, 1 KiB)", rawProduce, "rec/s", null, "ceiling");
    }

    /** A service's CPU time per event: the whole process's, and its Kafka Streams threads' alone. */
    record CpuPerEvent(double processMicros, double streamThreadMicros) {}

    void appendThroughput(List<AppendLoad.Throughput> runs, BrokerWrites.PerEvent writes, CpuPerEvent cpu) {
        Samples eps = Samples.of(runs.stream().map(AppendLoad.Throughput::eventsPerSec).toList());
        Samples ratio = eps.ratioTo(rawProduce);
        figure("2_append_throughput", Map.of("runs", runs, "eventsPerSec", summary(eps), "ratioToRawProduce", summary(ratio),
                "brokerWritesPerEvent", writes, "sessionServiceCpuMicrosPerEvent", cpu, "target", "ratio >= 0.3"));
        row("2_append_throughput", "2 append throughput (SDK, %d sessions, batches of %d)".formatted(settings.sessions(), settings.batch()), eps,
                "events/s", ratio, "≥ 0.3");
        row("2_append_throughput", String.format(Locale.ROOT, "| 2 session-service CPU per appended event | %.1f µs (stream threads %.1f µs) | — | — |%n",
                cpu.processMicros(), cpu.streamThreadMicros()));
        brokerWritesRow("2_append_throughput", "2", writes);
    }

    void appendLatency(AppendLoad.Latency run, BrokerWrites.PerEvent writes) {
        figure("3_append_latency", Map.of("run", run, "brokerWritesPerEvent", writes, "target", "p50 <= 25 ms, p99 <= 100 ms"));
        row("3_append_latency", String.format(Locale.ROOT, "| 3 append latency (%d/s single events over %d sessions) | p50 %.1f ms, p99 %.1f ms, max %.0f ms (achieved %.0f/s, %d failed) | — | p50 ≤ 25 ms, p99 ≤ 100 ms |%n",
                run.targetRate(), settings.latencySessions(), run.p50Ms(), run.p99Ms(), run.maxMs(), run.achievedRate(), run.failures()));
        brokerWritesRow("3_append_latency", "3", writes);
    }

    /** What the broker took per event appended in figure {@code figure}'s window, the three largest topics by records named. */
    private void brokerWritesRow(String key, String figure, BrokerWrites.PerEvent writes) {
        String largest = writes.recordsByTopic().entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed()).limit(3)
                .map(e -> String.format(Locale.ROOT, "%s %.2f", e.getKey(), e.getValue())).collect(java.util.stream.Collectors.joining(", "));
        row(key, String.format(Locale.ROOT, "| %s broker writes per appended event (every Tether topic; a transaction marker takes a record) | %.2f records (%s, …), %,.0f bytes | — | raw produce: 1 record |%n",
                figure, writes.records(), largest, writes.bytes()));
    }

    /**
     * The consume ceiling, measured before figure 4's twins, between them and the projector, and after it: their ratios
     * are taken to the median ({@link Samples#ratioTo} of a single value).
     */
    void rawConsume(List<RawCeiling.Consumed> runs) {
        Samples fetch = Samples.of(runs.stream().map(RawCeiling.Consumed::fetchRecordsPerSec).toList());
        rawConsumeFetch = Samples.of(List.of(fetch.median()));
        figure("1_raw_consume", Map.of("runs", runs, "fetchRecordsPerSec", summary(fetch)));
        row("1_raw_consume", runs.size() == 1 ? "1 raw consume (ConsumerPerformance, fetch phase)"
                : "1 raw consume (ConsumerPerformance, fetch phase; before figure 4's twins, before the projector, after it: the ratios are to the median)",
                fetch, "rec/s", null, "ceiling");
    }

    /** Kafka Streams' own ceiling on figure 4's records ({@link StreamsCeiling}), a row per twin. */
    void streamsCeiling(List<StreamsCeiling.Run> runs) {
        var twins = new LinkedHashMap<String, Object>();
        for (StreamsCeiling.Run run : runs) {
            twins.put(run.twin().name().toLowerCase(Locale.ROOT), Map.of("run", run, "ratioToRawConsume",
                    summary(Samples.of(List.of(run.eventsPerSec())).ratioTo(rawConsumeFetch))));
        }
        figure("4_streams_ceiling", Map.of("twins", twins)); // before the rows: their load cell reads the figure's
        for (StreamsCeiling.Run run : runs) {
            Samples eps = Samples.of(List.of(run.eventsPerSec()));
            String what = run.twin() == StreamsCeiling.Twin.BYTES ? "the records' bytes" : "each event decoded as the projector's source does";
            row("4_streams_ceiling", String.format(Locale.ROOT, "4 Kafka Streams alone (the services' settings, a processor that does nothing; %s; %.1f µs of stream-thread CPU per event)",
                    what, run.streamThreadMicrosPerEvent()), eps, "events/s", eps.ratioTo(rawConsumeFetch), "twin");
        }
    }

    /**
     * @param cores the cores each kind of the projector's threads used while it caught up: a fresh JVM's JIT and RocksDB's
     *              flushes and compactions share the machine with the stream thread and the broker
     */
    void projection(ProjectionCatchUp.CatchUp run, long eventRecords, double streamMicrosPerEvent, Map<ServiceCpu.ThreadKind, Double> cores) {
        Samples eps = Samples.of(List.of(run.eventsPerSec()));
        Samples ratio = eps.ratioTo(rawConsumeFetch);
        figure("4_projection_throughput", Map.of("run", run, "sessionEventsRecords", eventRecords, "streamThreadMicrosPerEvent",
                streamMicrosPerEvent, "projectorCoresWhileCatchingUp", cores, "ratioToRawConsume", summary(ratio), "target", "ratio >= 0.3"));
        row("4_projection_throughput", String.format(Locale.ROOT,
                "4 projection throughput (a fresh projector catching up on %d events; %.1f µs of stream-thread CPU per event; its cores meanwhile: %s)",
                eventRecords, streamMicrosPerEvent, coresCell(cores)), eps, "events/s", ratio, "≥ 0.3");
        projectionRowsEnd = rows.length();
    }

    /**
     * The same projector caught up and warm, given a backlog of {@code events} over {@code sessions} sessions at once; its
     * ratio is to the same raw consume as the cold catch-up's.
     */
    void projectionWarm(ProjectionCatchUp.CatchUp run, long events, int sessions, Map<ServiceCpu.ThreadKind, Double> cores) {
        Samples eps = Samples.of(List.of(run.eventsPerSec()));
        Samples ratio = eps.ratioTo(rawConsumeFetch);
        figure("4_projection_throughput_warm", Map.of("run", run, "backlogEvents", events, "backlogSessions", sessions,
                "projectorCoresWhileCatchingUp", cores, "ratioToRawConsume", summary(ratio), "target", "ratio >= 0.3"));
        int from = rows.length();
        row("4_projection_throughput_warm", String.format(Locale.ROOT,
                "4 projection throughput, warm (the same projector, caught up, given %d events in %d sessions at once; its cores meanwhile: %s)",
                events, sessions, coresCell(cores)), eps, "events/s", ratio, "≥ 0.3");
        // measured after figure 7 in a full run, shown beside the cold catch-up
        String row = rows.substring(from);
        rows.delete(from, rows.length()).insert(projectionRowsEnd, row);
    }

    private static String coresCell(Map<ServiceCpu.ThreadKind, Double> cores) {
        return cores.entrySet().stream().map(e -> String.format(Locale.ROOT, "%s %.2f", kindName(e.getKey()), e.getValue()))
                .collect(java.util.stream.Collectors.joining(", "));
    }

    private static String kindName(ServiceCpu.ThreadKind kind) {
        return switch (kind) {
            case STREAMS -> "stream threads";
            case ROCKSDB -> "RocksDB";
            case JIT -> "JIT compilers";
            case GC -> "GC";
            case OTHER -> "other";
        };
    }

    void fold(List<FoldJmh.Result> runs, List<FoldCpu.Result> cpu) {
        double first = runs.get(0).nsPerEvent();
        double last = runs.get(runs.size() - 1).nsPerEvent();
        double cpuFirst = cpu.get(0).nsPerEvent();
        double cpuLast = cpu.get(cpu.size() - 1).nsPerEvent();
        figure("5_fold_jmh", Map.of("runs", runs, "lastToFirst", last / first, "target", "lastToFirst <= 1.2"));
        figure("5_fold_cpu", Map.of("runs", cpu, "lastToFirst", cpuLast / cpuFirst, "target", "lastToFirst <= 1.2"));
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
        foldRows = String.format(Locale.ROOT, "| 5 fold per event, pure (JMH, wall time, at session length) | %s | %.2f | %s | %s |%n", cells,
                last / first, target, loadCell("5_fold_jmh"))
                + String.format(Locale.ROOT, "| 5 fold per event, pure (thread CPU time, %d windows of 1,000) | %s | %.2f | %s | %s |%n",
                        cpu.get(0).windows(), cpuCells, cpuLast / cpuFirst, target, loadCell("5_fold_cpu"));
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
        figure("5_constant_cost", Map.of("byLength", byLength, "cpuLastToFirst", cpuRatio, "storeBytesLastToFirst", bytesRatio,
                "target", "lastToFirst <= 1.2"));
        StringBuilder cpu = new StringBuilder();
        StringBuilder bytes = new StringBuilder();
        for (ConstantCost.AtLength l : lengths) {
            cpu.append(cpu.isEmpty() ? "" : ", ").append(lengthName(l.length())).append(": ").append(range(l.projectorCpu(), "%.0f")).append(" µs");
            bytes.append(bytes.isEmpty() ? "" : ", ").append(lengthName(l.length())).append(": ").append(range(l.storeBytes(), "%.0f")).append(" B");
        }
        String target = "≤ 1.2 (" + lengthName(last.length()) + " vs " + lengthName(first.length()) + ")";
        rows.append(foldRows);
        row("5_constant_cost", String.format(Locale.ROOT, "| 5 projector CPU per event, end to end (its Kafka Streams threads, %d-event windows) | %s | %.2f | %s |%n",
                first.windows().get(0).events(), cpu, cpuRatio, target));
        row("5_constant_cost", String.format(Locale.ROOT, "| 5 projector store bytes written per event (changelogs, checkpoints) | %s | %.2f | %s |%n",
                bytes, bytesRatio, target));
    }

    void amplification(List<Amplification.Run> runs) {
        double flat = runs.get(runs.size() - 1).ratio() / runs.get(0).ratio();
        figure("6_storage_amplification", Map.of("runs", runs, "lastToFirst", flat, "target", "ratio <= 3, flat in session length"));
        StringBuilder cells = new StringBuilder();
        for (Amplification.Run r : runs) {
            cells.append(cells.isEmpty() ? "" : ", ").append(String.format(Locale.ROOT, "%,d turns: %.2f (%.2f without commands)", r.turns(),
                    r.ratio(), r.ratioWithoutCommands()));
        }
        row("6_storage_amplification", String.format(Locale.ROOT, "| 6 bytes stored per payload byte (all topics, before compaction) | %s | %.2f (long/short) | ≤ 3, flat |%n",
                cells, flat));
    }

    void resume(List<Resume.Run> runs) {
        figure("7_resume_latency", Map.of("runs", runs, "target", "p99 <= 50 ms compacted, p99 <= 100 ms never compacted within the model's window"));
        for (Resume.Run run : runs) {
            row("7_resume_latency", String.format(Locale.ROOT, "| 7 resume: claim + recovery + context, session of %,d events%s (%d rounds) | p50 %.1f ms, p99 %.1f ms (claim %.1f / %.1f, recovery %.1f / %.1f, context %.1f / %.1f ms at p50 / p99; context %,d chars) | — | %s |%n",
                    run.sessionLength(), ", " + run.shape(),
                    run.rounds(), run.p50Ms(), run.p99Ms(), run.claimP50Ms(), run.claimP99Ms(), run.recoveryP50Ms(), run.recoveryP99Ms(),
                    run.contextP50Ms(), run.contextP99Ms(), run.contextChars(), run.target()));
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
        figure("8_recovery", m);
        row("8_recovery", String.format(Locale.ROOT, "| 8 projector SIGKILLed holding %,d events in %,d sessions%s: until every partition serves again | %.1f s (ready after %.1f s; every checkpoint read back after %.1f s); it restored %,d records (%s) in %.1f s, as the projector logged it | — | — |%n",
                run.events(), run.sessions(), topUp == null ? "" : String.format(Locale.ROOT, " (%,d of them in %,d sessions written straight to session-events)",
                        (Long) topUp.get("events"), (Integer) topUp.get("sessions")),
                run.killToServingMs() / 1e3, run.killToReadyMs() / 1e3, run.killToAllReadMs() / 1e3, run.killRestore().records(),
                RestoreLog.byStore(run.killRestore().recordsByStore()), run.killRestore().millis() / 1e3));
        Recovery.Restore restore = run.emptyStateRestore();
        row("8_recovery", String.format(Locale.ROOT, "| 8 the same from an empty local state | %.1f s: %.0f events/s (ready after %.1f s; every checkpoint read back after %.1f s); the restore itself, as the projector logged it: %.1f s, %.0f events/s (%,d records in %d wave%s: %s); from the launch, Quarkus started at %s and the restore began at %s | — | ≥ 150,000 events/s |%n",
                run.emptyStateToServingMs() / 1e3, run.emptyStateEventsPerSec(), run.emptyStateToReadyMs() / 1e3, run.emptyStateToAllReadMs() / 1e3,
                restore.millis() / 1e3, restore.eventsPerSec(), restore.records(), restore.waves(), restore.waves() == 1 ? "" : "s",
                RestoreLog.byStore(restore.recordsByStore()), seconds(restore.startedMs()), seconds(restore.restoreBeganMs())));
    }

    void failover(Failover.Run run) {
        figure("10_failover", Map.of("run", run, "growth", run.growth(), "target",
                "<= 10 s at every kill, <= 1.2x from the smallest size's median kill to the largest's"));
        run.bySize().forEach((size, kills) -> {
            List<Failover.Round> at = run.rounds().stream().filter(r -> r.events() == size).toList();
            row("10_failover", String.format(Locale.ROOT, "| 10 failover: two instances of each service with standbys, the one holding the most of the projector's 6 active tasks SIGKILLed, %d time%s, holding %,d events in %,d sessions: until the other serves every partition (probes of each), the later of reads and appends | median %.1f s [%.1f–%.1f] (%s; all %,d checkpoints read by 8 readers %s s after it) | — | ≤ 10 s |%n",
                    at.size(), at.size() == 1 ? "" : "s", size, at.get(0).sessions(), kills.median() / 1e3, kills.min() / 1e3, kills.max() / 1e3,
                    at.stream().map(r -> String.format(Locale.ROOT, "%s with %d tasks at load %.1f: reads %.1f s, appends %.1f s", r.killed(),
                            r.activeTasksKilled(), r.loadAtKill(), r.readsMs() / 1e3, r.appendsMs() / 1e3)).collect(Collectors.joining("; ")),
                    at.get(0).sessions(), at.stream().map(r -> String.format(Locale.ROOT, "%.1f", r.allCheckpointsMs() / 1e3)).collect(Collectors.joining("/"))));
        });
        row("10_failover", String.format(Locale.ROOT, "| 10 failover: the largest size's median kill over the smallest's | %.2f× | — | ≤ 1.2× |%n", run.growth()));
    }

    void coldStart(ColdStart.Run run) {
        figure("9_cold_start", Map.of("run", run));
        row("9_cold_start", String.format(Locale.ROOT, "| 9 cold start: `bin/run --no-demo` until all four services are ready%s | %.1f s | — | — |%n",
                run.built() ? " (it built first!)" : ", built, warm Maven cache", run.allHealthyMs() / 1e3));
    }

    /** Milliseconds as seconds, or "not logged" for the -1 of a time whose log line was missing. */
    private static String seconds(long millis) {
        return millis < 0 ? "not logged" : String.format(Locale.ROOT, "%.1f s", millis / 1e3);
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
        root.put("loaded", loaded());
        return this;
    }

    /**
     * Whether the run was loaded: the 1-minute load average above the cores when it started or while any figure ran. Its
     * figures are then no quiet machine's, and its file says so in its name.
     */
    private boolean loaded() {
        return loadAtRunStart > Machine.cores() || figures.values().stream().anyMatch(
                f -> f instanceof Map<?, ?> m && m.get("load") instanceof Map<?, ?> load && Boolean.TRUE.equals(load.get("aboveCores")));
    }

    /** Writes the run to {@code dir}: {@code <UTC time>[-<profile>][-loaded].json}. */
    Path writeJson(Path dir) throws IOException {
        Files.createDirectories(dir);
        String name = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HHmmss'Z'").withZone(ZoneOffset.UTC).format(started)
                + (settings.profile().equals("full") ? "" : "-" + settings.profile())
                + (Boolean.TRUE.equals(root.get("loaded")) ? "-loaded" : "") + ".json";
        Path file = dir.resolve(name);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), root);
        return file;
    }

    String markdown() {
        @SuppressWarnings("unchecked")
        var machine = (Map<String, Object>) root.get("machine");
        return "Run of " + started + " (" + settings.profile() + ", " + settings.repetitions() + " repetitions; median [min–max]); "
                + machine.get("cores") + " cores, " + machine.get("memory") + ", Java " + machine.get("java")
                + ", load average at start " + machine.get("loadAverage") + ", at end " + root.get("loadAverageAtEnd") + ". "
                + "Load: the 1-minute load average when the figure started and ended, which counts the benchmark's own broker, "
                + "registry, services and load too; ⚠ marks a figure taken at a load above the " + machine.get("cores") + " cores"
                + (anyBusy ? "" : " (none was)") + ".\n\n"
                + "| figure | result | ratio (to raw; in 5 and 6 longest to shortest) | target | load |\n|---|---|---|---|---|\n" + rows
                + info.entrySet().stream().map(e -> String.format(Locale.ROOT, "| %s | %s | | | |%n", e.getKey(), format(e.getValue())))
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

    private void row(String key, String figure, Samples values, String unit, Samples ratio, String target) {
        row(key, "| " + figure + " | " + range(values, "%.0f") + ' ' + unit + " | " + (ratio == null ? "—" : range(ratio, "%.2f")) + " | "
                + target + " |");
    }

    /** A row of the table, its figure's load cell appended. */
    private void row(String key, String cells) {
        rows.append(cells.stripTrailing()).append(' ').append(loadCell(key)).append(" |\n");
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
