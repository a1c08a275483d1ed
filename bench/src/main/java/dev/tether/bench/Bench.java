package dev.tether.bench;

import dev.tether.bench.fold.AgentTurns;
import dev.tether.client.RetryPolicy;
import dev.tether.client.SessionWriter;
import dev.tether.client.TetherClient;
import dev.tether.client.TetherOptions;
import dev.tether.testing.ServiceProcess;
import dev.tether.testing.TetherStack;
import dev.tether.testing.Trees;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * The benchmark driver. Starts its own broker and registry ({@code deploy/local/stack}, free loopback ports)
 * and the packaged session-service and projector-service, measures, stops every process it started by PID,
 * and writes the results. Every Tether figure is set against the raw ceiling of the same broker in the same run.
 *
 * <pre>
 * bench/run [full|smoke]        # from the repository root; see bench/README.md
 * </pre>
 */
public final class Bench {

    /**
     * Kafka Streams settings of both services, as their application.properties set them, and the options a run added to
     * a service's start ({@link #serviceProperties}); recorded with the results.
     */
    static final Map<String, String> SERVICE_SETTINGS = serviceSettings();

    /** Events per append when the long sessions of figures 5 and 7 are filled. */
    static final int COST_BATCH = 200;
    /** Events figure 8's top-up writes at least into each fresh session (20 agent turns of five events). */
    private static final int RECOVERY_TOP_UP_PER_SESSION = 100;

    private final BenchSettings settings;
    private final Path workDir;

    Bench(BenchSettings settings, Path workDir) {
        this.settings = settings;
        this.workDir = workDir;
    }

    public static void main(String[] args) throws Exception {
        BenchSettings settings = BenchSettings.named(args.length > 0 ? args[0] : "full");
        Path results = Path.of(args.length > 1 ? args[1] : "bench/results");
        Path readme = args.length > 2 ? Path.of(args[2]) : null;
        Path workDir = Files.createTempDirectory("tether-bench-");
        int status = 0;
        try {
            Report report = new Bench(settings, workDir).run();
            Path json = report.writeJson(results);
            System.out.println(report.markdown());
            System.out.println("results: " + json);
            if (readme != null) {
                report.updateReadme(readme, results.relativize(json).toString());
            }
            Trees.delete(workDir);
        } catch (Exception e) {
            e.printStackTrace();
            System.err.println("bench: the services' logs and state are kept in " + workDir);
            status = 1;
        }
        // the stack's shutdown hook stops the broker and the registry by their PIDs
        System.exit(status);
    }

    /** Runs every figure; the services it starts are stopped before it returns, the stack when the JVM exits. */
    Report run() throws Exception {
        var report = new Report(settings, Instant.now());
        Path root = Path.of(System.getProperty("tether-test.root", ".")).toAbsolutePath().normalize();

        // (5) the pure fold first, on a machine not yet busy with the broker
        if (settings.measures(5)) {
            report.starting("5_fold_jmh");
            List<FoldJmh.Result> fold = new FoldJmh(workDir.resolve("jmh")).run(settings.jmhLengths(), settings.jmhOptions());
            fold.forEach(r -> log("fold at %d events: %.0f ns/event", r.length(), r.nsPerEvent()));
            report.starting("5_fold_cpu");
            List<FoldCpu.Result> foldCpu = FoldCpu.run(settings.jmhLengths(), settings.foldCpuWindows());
            foldCpu.forEach(r -> log("fold at %d events: %.0f ns CPU/event", r.length(), r.nsPerEvent()));
            report.fold(fold, foldCpu);
        }

        TetherStack stack = startStack();
        if (settings.profile().equals("failover")) {
            failover(report, stack, root);
            return report.finished(Instant.now());
        }
        String prefix = "bench-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        String rawTopic = prefix + "raw";
        String eventsTopic = prefix + "session-events";
        var env = ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix, "TETHER_SESSIONS_BLOBS_DIR", workDir.resolve("blobs").toString());
        var sessionService = new ServiceProcess(root.resolve("session-service"), workDir.resolve("session-service"), env,
                sessionServiceProperties());
        var projector = new ServiceProcess(root.resolve("projector-service"), workDir.resolve("projector-service"), env,
                serviceProperties("projector-service"));
        // Ctrl-C: the services go too (the stack has its own hook)
        Thread hook = new Thread(() -> {
            projector.stop();
            sessionService.stop();
        }, "bench-services-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try (Admin admin = Admin.create(stack.clientConfig())) {
            admin.createTopics(List.of(new NewTopic(rawTopic, 6, (short) 1))).all().get(30, TimeUnit.SECONDS);
            var raw = new RawCeiling(stack.bootstrapServers(), Files.createDirectories(workDir.resolve("tools")));

            long t0 = System.nanoTime();
            sessionService.start();
            report.info("session-service start to ready (ms)", (System.nanoTime() - t0) / 1e6);

            try (TetherClient client = TetherClient.create(TetherOptions.of(URI.create(sessionService.baseUrl()),
                    URI.create(projector.baseUrl()), URI.create("http://127.0.0.1:9")).withToken("dev-acme-agent")
                    .withTimeout(Duration.ofSeconds(30)).withRetry(RetryPolicy.of(3, Duration.ofMillis(100), Duration.ofSeconds(1))))) {
                var load = new AppendLoad(client, settings.recordBytes());
                var sessionServiceCpu = new ServiceCpu(root.resolve("session-service"), prefix + "tether-session-service");
                if (settings.measures(2)) {
                    List<SessionWriter> writers = load.sessions("tput", settings.sessions(), 8);

                    // (1) and (2), interleaved so that drift of the shared machine hits both alike
                    // the same load first, not measured: the session-service's JIT warms up (BenchSettings.appendWarmupMs)
                    long appendWarmupMs = Long.getLong("bench.append.warmup.ms", settings.appendWarmupMs());
                    if (appendWarmupMs > 0) {
                        report.info("append warm-up before figures 1-2, not measured (ms)", appendWarmupMs);
                        var warm = load.throughput(writers, settings.batch(), 0, appendWarmupMs);
                        log("append warm-up: %.0f events/s over %d ms", warm.eventsPerSec(), appendWarmupMs);
                    }
                    var writes = new BrokerWrites(admin, stack.clientConfig(), prefix); // only the session-service writes until figure 4
                    BrokerWrites.Snapshot beforeThroughput = writes.snapshot();
                    report.starting("1_raw_produce", "2_append_throughput");
                    var produced = new ArrayList<RawCeiling.Produced>();
                    var appended = new ArrayList<AppendLoad.Throughput>();
                    long cpuNanos = 0;
                    long streamNanos = 0;
                    for (int rep = 0; rep < settings.repetitions(); rep++) {
                        produced.add(raw.produce(rawTopic, settings.rawRecords(), settings.recordBytes()));
                        long cpu0 = sessionServiceCpu.nanos();
                        long stream0 = sessionServiceCpu.streamThreadNanos();
                        appended.add(load.throughput(writers, settings.batch(), settings.warmupMs(), settings.measureMs()));
                        cpuNanos += sessionServiceCpu.nanos() - cpu0;
                        streamNanos += sessionServiceCpu.streamThreadNanos() - stream0;
                        log("rep %d: raw produce %.0f rec/s, append %.0f events/s", rep + 1, produced.get(rep).recordsPerSec(),
                                appended.get(rep).eventsPerSec());
                    }
                    report.rawProduce(produced);
                    var throughputWrites = BrokerWrites.between("2_append_throughput", beforeThroughput, writes.snapshot());
                    // the session-service's CPU while it appended (warm-ups included), per event appended (idem): a cost the load of a
                    // shared machine moves far less than the rate
                    var cpu = new Report.CpuPerEvent(cpuNanos / 1e3 / throughputWrites.events(), streamNanos / 1e3 / throughputWrites.events());
                    log("append: the session-service took %.1f µs of CPU per event, %.1f µs of it in its stream threads", cpu.processMicros(),
                            cpu.streamThreadMicros());
                    report.appendThroughput(appended, throughputWrites, cpu);

                    // (3), at the rate of -Dbench.latency.rate (BENCH_LATENCY_RATE) if set
                    List<SessionWriter> latencyWriters = load.sessions("lat", settings.latencySessions(), 8);
                    int rate = Integer.getInteger("bench.latency.rate", settings.latencyRate());
                    if (rate != settings.latencyRate()) {
                        report.info("append latency rate (BENCH_LATENCY_RATE, per second)", rate);
                    }
                    BrokerWrites.Snapshot beforeLatency = writes.snapshot();
                    report.starting("3_append_latency");
                    var latency = load.latency(latencyWriters, rate, Math.min(64, settings.latencySessions()),
                            settings.warmupMs(), settings.latencyMeasureMs());
                    log("latency at %d/s: p50 %.1f ms, p99 %.1f ms", latency.targetRate(), latency.p50Ms(), latency.p99Ms());
                    report.appendLatency(latency, BrokerWrites.between("3_append_latency", beforeLatency, writes.snapshot()));
                }
                if (settings.appendOnly()) {
                    return report.finished(Instant.now());
                }

                var watch = new ProjectionCatchUp(admin);
                var projectorCpu = new ServiceCpu(root.resolve("projector-service"), prefix + "tether-projector-service");
                if (settings.measures(4)) {
                    // (4) the raw topic is full of 1 KiB records: the consume ceiling, measured before the twins, between
                    // them and the projector, and after it (as many of those as the run has repetitions, the smoke run one):
                    // the ratios are to their median, so that one swing of the machine does not set them
                    long rawRecords = settings.rawRecords() * settings.repetitions();
                    int consumes = Math.min(3, settings.repetitions());
                    var consumed = new ArrayList<RawCeiling.Consumed>();
                    report.starting("1_raw_consume");
                    consumed.add(rawConsume(raw, rawTopic, rawRecords));
                    long eventRecords = TopicCount.records(stack.clientConfig(), eventsTopic);
                    double recordShare = (double) eventRecords / watch.endOffsets(eventsTopic);

                    // Kafka Streams' own ceiling on the same records, with the services' Streams settings
                    report.starting("4_streams_ceiling");
                    var ceiling = new StreamsCeiling(stack.bootstrapServers(), stack.registryUrl(), workDir.resolve("streams-ceiling"));
                    var twins = new ArrayList<StreamsCeiling.Run>();
                    for (var twin : StreamsCeiling.Twin.values()) {
                        var run = ceiling.run(twin, eventsTopic, eventRecords);
                        log("Kafka Streams, %s: %.0f events/s, %.1f µs of stream-thread CPU per event", twin, run.eventsPerSec(),
                                run.streamThreadMicrosPerEvent());
                        twins.add(run);
                    }
                    report.ended("4_streams_ceiling");
                    if (consumes > 1) {
                        consumed.add(rawConsume(raw, rawTopic, rawRecords));
                    }

                    report.starting("4_projection_throughput");
                    long p0 = System.nanoTime();
                    var started = CompletableFuture.runAsync(projector::start);
                    // the projector's CPU by kind of thread over the catch-up alone: what the stream thread shares the cores with
                    var cpuAtFirst = new AtomicReference<Map<ServiceCpu.ThreadKind, Long>>();
                    var catchUp = watch.await(prefix + "tether-projector-service", eventsTopic, recordShare, Duration.ofMinutes(10), 100,
                            () -> cpuAtFirst.set(projectorCpu.nanosByThreadKind()));
                    var cores = coresBetween(cpuAtFirst.get(), projectorCpu.nanosByThreadKind(), catchUp.seconds());
                    started.get(5, TimeUnit.MINUTES);
                    report.info("projector-service start to ready (ms)", (System.nanoTime() - p0) / 1e6);
                    // the CPU of its Kafka Streams threads since it started (the start restores nothing): cost per event that the
                    // load of a shared machine moves far less than the rate
                    double streamMicrosPerEvent = projectorCpu.streamThreadNanos() / 1e3 / eventRecords;
                    log("projection %.0f events/s over %d records, %.1f µs of stream-thread CPU per event; cores while catching up %s",
                            catchUp.eventsPerSec(), eventRecords, streamMicrosPerEvent, cores);
                    report.ended("4_projection_throughput");
                    if (consumes > 2) {
                        consumed.add(rawConsume(raw, rawTopic, rawRecords));
                    }
                    report.rawConsume(consumed);
                    report.streamsCeiling(twins);
                    report.projection(catchUp, eventRecords, streamMicrosPerEvent, cores);
                } else {
                    projector.start();
                }
                var warm = new WarmBacklog(stack, eventsTopic, prefix, watch, projectorCpu, sessionService);
                if (!settings.measures(5) && !settings.measures(6) && !settings.measures(7) && !settings.measures(8)) {
                    if (settings.measures(4)) {
                        warm.measure(report, false);
                    }
                    return report.finished(Instant.now());
                }

                var rig = new Rig(client, load, prefix, watch, new StoreSizes(admin), projectorCpu, sessionServiceCpu);

                // (5) end to end: the projector's CPU and store bytes per event at each session length
                if (settings.measures(5)) {
                    report.starting("5_constant_cost");
                    report.constantCost(new ConstantCost(rig).measure(settings.costLengths(), settings.costWindow(), settings.repetitions(),
                            settings.costEventBytes(), COST_BATCH));
                }

                // (6)
                if (settings.measures(6)) {
                    report.starting("6_storage_amplification");
                    var amplification = new ArrayList<Amplification.Run>();
                    for (int turns : settings.amplificationTurns()) {
                        var run = new Amplification(rig).measure(turns, settings.amplificationEvents(), settings.recordBytes());
                        log("amplification at %d turns: %.2f bytes stored per payload byte", turns, run.ratio());
                        amplification.add(run);
                    }
                    report.amplification(amplification);
                }

                // (7)
                if (settings.measures(7)) {
                    report.starting("7_resume_latency");
                    var resume = new Resume(rig).measure(settings.resumeLength(), settings.resumeRepetitions(), settings.costEventBytes(),
                            COST_BATCH);
                    resume.forEach(r -> log("resume of %d events (%s): p50 %.1f ms, p99 %.1f ms, claim %.1f ms at p50", r.sessionLength(),
                            r.shape(), r.p50Ms(), r.p99Ms(), r.claimP50Ms()));
                    report.resume(resume);
                }
                // (4, warm) here in a full run, where figures 5-7 have kept the projector busy, and the session-service is
                // stopped for it no earlier
                int warmSessions = 0;
                if (settings.measures(4)) {
                    warmSessions = warm.measure(report, settings.measures(8));
                }
                if (!settings.measures(8)) {
                    return report.finished(Instant.now());
                }

                // (8) topped up to the projector's size at the kill, straight into session-events (EventTopUp): to its
                // events, and to its sessions with at least RECOVERY_TOP_UP_PER_SESSION events each, even when figures 2-7
                // left more events than that (a fast figure 2 leaves 1.2 million in about 190 sessions)
                long held = TopicCount.records(stack.clientConfig(), eventsTopic);
                int fresh = Math.max(0, settings.recoverySessions() - client.sessions().size() - warmSessions);
                long missing = Math.max(Math.max(settings.recoveryEvents() - held, settings.recoveryTopUpMin()),
                        (long) fresh * RECOVERY_TOP_UP_PER_SESSION);
                var written = new EventTopUp.Written(Map.of(), 0, 0);
                if (missing > 0) {
                    int sessions = Math.max(1, fresh);
                    long logFrom = Files.size(projector.log());
                    written = EventTopUp.write(stack.clientConfig(), stack.registryUrl(), eventsTopic, "recovery", sessions, missing,
                            settings.costEventBytes());
                    log("topped up %d events over %d sessions straight into session-events in %.1f s (%.0f events/s)", written.events(),
                            sessions, written.seconds(), written.eventsPerSec());
                    held += written.events();
                    long f0 = System.nanoTime();
                    watch.awaitCaughtUp(rig.projectorApp(), eventsTopic, Duration.ofMinutes(15), 200);
                    double foldSeconds = (System.nanoTime() - f0) / 1e9;
                    // the session-service materializes session-events too: caught up, so it does not compete with the restore
                    watch.awaitCaughtUp(prefix + "tether-session-service", eventsTopic, Duration.ofMinutes(15), 200);
                    List<String> warnings = warnings(projector.log(), logFrom);
                    log("the projector folded the top-up in %.0f s after the last write; %d WARN/ERROR lines in its log meanwhile",
                            foldSeconds, warnings.size());
                    warnings.stream().limit(5).forEach(w -> log("  %s", w));
                    report.recoveryTopUp(written, foldSeconds, warnings.size());
                }
                report.starting("8_recovery");
                var recovery = new Recovery(rig).measure(projector, workDir.resolve("projector-service").resolve("state"), held,
                        written.sessions());
                report.recovery(recovery);
            }
        } finally {
            projector.stop();
            sessionService.stop();
            Runtime.getRuntime().removeShutdownHook(hook);
        }

        // (10) services of its own, two of each, with the first ones stopped
        if (settings.measures(10)) {
            failover(report, stack, root);
        }

        // (9) with the benchmark's services stopped (its broker and registry idle)
        if (settings.coldStart()) {
            report.starting("9_cold_start");
            var cold = new ColdStart().measure(root, workDir.resolve("cold-start"));
            log("cold start: all four services ready in %.0f ms", cold.allHealthyMs());
            report.coldStart(cold);
        }
        return report.finished(Instant.now());
    }

    /**
     * (4, warm) The projector as it runs, caught up and warm, given a backlog at once: {@link BenchSettings#warmBacklogEvents}
     * events written straight into {@code session-events} ({@link EventTopUp}) while every {@code read_committed} reader is
     * held ({@link BacklogHold}), then released. The cold catch-up above is a fresh JVM's, whose JIT compilers take nearly as
     * much of the two cores as its stream thread; this is the same work without them. The session-service, which reads
     * {@code session-events} as well, is stopped meanwhile: in the cold catch-up it is idle, having written the events itself.
     */
    private final class WarmBacklog {

        private final TetherStack stack;
        private final String eventsTopic;
        private final String prefix;
        private final ProjectionCatchUp watch;
        private final ServiceCpu projectorCpu;
        private final ServiceProcess sessionService;

        WarmBacklog(TetherStack stack, String eventsTopic, String prefix, ProjectionCatchUp watch, ServiceCpu projectorCpu,
                    ServiceProcess sessionService) {
            this.stack = stack;
            this.eventsTopic = eventsTopic;
            this.prefix = prefix;
            this.watch = watch;
            this.projectorCpu = projectorCpu;
            this.sessionService = sessionService;
        }

        /**
         * Measures it, and starts the session-service again if {@code thenSessionService}, caught up on the backlog.
         *
         * @return the sessions the backlog and the hold were written in
         */
        int measure(Report report, boolean thenSessionService) throws Exception {
            String projectorGroup = prefix + "tether-projector-service";
            watch.awaitCaughtUp(projectorGroup, eventsTopic, Duration.ofMinutes(10), 100);
            sessionService.stop();
            EventTopUp.Written backlog;
            ProjectionCatchUp.CatchUp catchUp;
            Map<ServiceCpu.ThreadKind, Double> cores;
            int sessions;
            try (var hold = BacklogHold.open(stack.clientConfig(), stack.registryUrl(), eventsTopic, "warm-hold")) {
                // user messages of figure 2's size, as the cold catch-up's events mostly are
                backlog = EventTopUp.write(stack.clientConfig(), stack.registryUrl(), eventsTopic, "warm", settings.sessions(), 1,
                        settings.warmBacklogEvents(), settings.recordBytes(), AgentTurns::userMessage);
                log("backlog: %d events over %d sessions written in %.1f s, held", backlog.events(), settings.sessions(), backlog.seconds());
                long committed = watch.committed(projectorGroup, eventsTopic);
                report.starting("4_projection_throughput_warm");
                hold.release();
                // the offsets after the committed ones: the held events, the backlog, and a marker per partition for the hold's commit
                double recordShare = (double) (hold.events() + backlog.events()) / (watch.endOffsets(eventsTopic) - committed);
                sessions = settings.sessions() + hold.events();
                var cpuAtFirst = new AtomicReference<Map<ServiceCpu.ThreadKind, Long>>();
                catchUp = watch.await(projectorGroup, eventsTopic, recordShare, Duration.ofMinutes(10), 100,
                        () -> cpuAtFirst.set(projectorCpu.nanosByThreadKind()));
                cores = coresBetween(cpuAtFirst.get(), projectorCpu.nanosByThreadKind(), catchUp.seconds());
            }
            log("projection, warm: %.0f events/s over a backlog of %d events; cores meanwhile %s", catchUp.eventsPerSec(),
                    backlog.events(), cores);
            report.ended("4_projection_throughput_warm");
            report.projectionWarm(catchUp, backlog.events(), settings.sessions(), cores);
            if (thenSessionService) {
                sessionService.start();
                watch.awaitCaughtUp(prefix + "tether-session-service", eventsTopic, Duration.ofMinutes(15), 200);
            }
            return sessions;
        }
    }

    /** The cores each kind of thread used between two readings {@code seconds} apart, the threads alive at both. */
    private static Map<ServiceCpu.ThreadKind, Double> coresBetween(Map<ServiceCpu.ThreadKind, Long> from, Map<ServiceCpu.ThreadKind, Long> to,
                                                                double seconds) {
        var cores = new EnumMap<ServiceCpu.ThreadKind, Double>(ServiceCpu.ThreadKind.class);
        to.forEach((kind, nanos) -> cores.put(kind, Math.max(0, nanos - from.getOrDefault(kind, 0L)) / 1e9 / seconds));
        return cores;
    }

    private static RawCeiling.Consumed rawConsume(RawCeiling raw, String topic, long records) throws Exception {
        var consumed = raw.consume(topic, records);
        log("raw consume %.0f rec/s (fetch phase)", consumed.fetchRecordsPerSec());
        return consumed;
    }

    private void failover(Report report, TetherStack stack, Path root) throws Exception {
        report.starting("10_failover");
        int kills = Integer.getInteger("bench.failover.kills", settings.failoverKills());
        var run = new Failover(stack, root, workDir, settings.costEventBytes()).measure(settings.failoverSizes(), settings.failoverSessions(), kills);
        log("failover: the largest size's median kill took %.2f× the smallest's", run.growth());
        report.failover(run);
    }

    /**
     * The broker and registry. On this shared machine, at a load average of 40-60, their start has failed a
     * few times without a line of log (the broker gone before it wrote one): one more try before giving up.
     */
    private static TetherStack startStack() {
        try {
            return TetherStack.shared();
        } catch (IllegalStateException e) {
            log("the broker and registry did not start (%s); trying once more", e.getMessage().lines().findFirst().orElse(""));
            return TetherStack.shared();
        }
    }

    /** The WARN and ERROR lines of a service's log from byte {@code from} on. */
    private static List<String> warnings(Path log, long from) throws java.io.IOException {
        byte[] all = Files.readAllBytes(log);
        String since = new String(all, (int) Math.min(from, all.length), (int) Math.max(0, all.length - from),
                java.nio.charset.StandardCharsets.UTF_8);
        return since.lines().filter(l -> l.contains(" WARN ") || l.contains(" ERROR ")).toList();
    }

    /**
     * The sequencer's settings as measured: {@code -Dbench.sequencer.commit.interval.ms} overrides its commit interval,
     * {@code -Dbench.sequencer.poll.ms} its stream thread's poll time.
     */
    private static List<String> sessionServiceProperties() {
        var properties = new ArrayList<>(serviceProperties("session-service"));
        String interval = System.getProperty("bench.sequencer.commit.interval.ms");
        if (interval != null) {
            properties.add("-Dkafka-streams.commit.interval.ms=" + interval);
        }
        String poll = System.getProperty("bench.sequencer.poll.ms");
        if (poll != null) {
            properties.add("-Dkafka-streams.poll.ms=" + poll);
        }
        return properties;
    }

    /**
     * The session-service's poll time as its processes start: {@code -Dbench.sequencer.poll.ms}, else the one the build
     * gives its test processes ({@link ServiceProcess#jvmOptions()}, in {@code BenchSmokeIT}), else its own 10 ms.
     */
    private static String sequencerPollMs() {
        String prefix = "-Dkafka-streams.poll.ms=";
        String fromBuild = ServiceProcess.jvmOptions().stream().filter(o -> o.startsWith(prefix)).reduce((a, b) -> b)
                .map(o -> o.substring(prefix.length())).orElse("10");
        return System.getProperty("bench.sequencer.poll.ms", fromBuild);
    }

    private static Map<String, String> serviceSettings() {
        var settings = new TreeMap<>(Map.of(
                "processing.guarantee", "exactly_once_v2",
                "commit.interval.ms", "projector 100, session-service " + System.getProperty("bench.sequencer.commit.interval.ms", "20"),
                "poll.ms", "projector 100, session-service " + sequencerPollMs(),
                "partitions per topic", "6",
                "replication factor", "1",
                "service heap", "-Xmx384m"));
        for (String service : List.of("projector-service", "session-service")) {
            String options = addedOptions(service);
            if (!options.isEmpty()) {
                settings.put(service + " options", options);
            }
        }
        return Collections.unmodifiableMap(settings);
    }

    /** The options of {@code -Dbench.<service>.options}, trimmed. */
    private static String addedOptions(String service) {
        return System.getProperty("bench." + service + ".options", "").trim();
    }

    /**
     * The options {@code service} ({@code session-service} or {@code projector-service}) starts with: its flight
     * recording ({@link #flightRecording}) and the space-separated options of {@code -Dbench.<service>.options}
     * ({@code BENCH_PROJECTOR_OPTS} and {@code BENCH_SESSION_SERVICE_OPTS} of bench/run), for trying a setting such
     * as {@code -Dkafka-streams.restore.consumer.max.poll.records=10000}.
     */
    static List<String> serviceProperties(String service) {
        var properties = new ArrayList<>(flightRecording(service));
        String options = addedOptions(service);
        if (!options.isEmpty()) {
            properties.addAll(List.of(options.split("\\s+")));
        }
        return properties;
    }

    /**
     * With {@code -Dbench.jfr=DIR}, each start of a service records a JFR profile into DIR/SERVICE/, in a file
     * JFR names after the process (hotspot-pid-…), written when it stops.
     */
    private static List<String> flightRecording(String service) {
        String dir = System.getProperty("bench.jfr");
        if (dir == null) {
            return List.of();
        }
        Path into = Path.of(dir).toAbsolutePath().resolve(service);
        try {
            Files.createDirectories(into);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        // the repository inside DIR too: a SIGKILLed service writes no recording, but its chunks stay there
        return List.of("-XX:StartFlightRecording=settings=profile,filename=" + into + "/",
                "-XX:FlightRecorderOptions=repository=" + into.resolve("repository"));
    }

    static void log(String format, Object... args) {
        System.err.printf("bench: " + format + "%n", args);
    }
}
