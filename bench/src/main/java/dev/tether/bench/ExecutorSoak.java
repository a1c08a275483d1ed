package dev.tether.bench;

import dev.tether.avro.AuthorizationBasis;
import dev.tether.avro.AuthorizationBasisKind;
import dev.tether.avro.ToolMode;
import dev.tether.avro.ToolRequest;
import dev.tether.core.id.IdempotencyKey;
import dev.tether.kit.kafka.AvroSerdes;
import dev.tether.kit.kafka.ProducerSettings;
import dev.tether.kit.kafka.SessionPartitioner;
import dev.tether.testing.ServiceProcess;
import dev.tether.testing.TetherStack;
import dev.tether.testing.Trees;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The tool-executor soak (issue 15 §3): {@code calls} tool calls across {@code sessions} sessions through the packaged
 * executor, its heap after a forced full GC sampled every {@code step} calls, and the time a second instance takes to
 * take over the partitions of the first after a SIGKILL, once at the first step and once at the end.
 *
 * <p>The requests are written straight into the run's {@code tool-requests} (what the projector writes for an
 * authorized call: a {@code list_dir} of the session's workspace, READ_ONLY, POLICY basis, {@code requestedAt} = now),
 * so the executor is the only service measured; its {@code tool_result} commands are left unread in
 * {@code session-commands}. Instance A runs the first step; then B is started, joins, and A is SIGKILLed: the
 * takeover is timed from the kill until B has handled two probe calls on every partition (it includes the group's
 * 15 s session timeout, constant). B runs every later step, sampled after each; at the end A is started again and B
 * killed, the same takeover at {@code calls}. Each service keeps the default {@code -Xmx384m}. Prints a markdown table
 * for bench/README.md. Run with {@code bench/executor-soak}; every process it starts is stopped by PID.
 */
public final class ExecutorSoak {

    /**
     * Calls running at once per instance (the default is 4): each call waits for three acknowledged writes, so on a
     * loaded machine 4 threads make a 100,000-call run last over an hour; more threads change the rate, not what the
     * ledger holds.
     */
    private static final int CONCURRENCY = Integer.getInteger("soak.concurrency", 16);

    private final int calls;
    private final int sessions;
    private final int step;
    private final Path root;
    private final Path workDir;

    private ExecutorSoak(int calls, int sessions, int step, Path root, Path workDir) {
        this.calls = calls;
        this.sessions = sessions;
        this.step = step;
        this.root = root;
        this.workDir = workDir;
    }

    public static void main(String[] args) throws Exception {
        SoakSize size = SoakSize.parse(args, 100_000);
        Path root = Path.of(System.getProperty("tether-test.root", ".")).toAbsolutePath().normalize();
        Path workDir = Files.createTempDirectory("executor-soak");
        try {
            new ExecutorSoak(size.count(), size.sessions(), size.step(), root, workDir).run();
        } finally {
            Trees.delete(workDir);
        }
        System.exit(0); // the stack's shutdown hook stops the broker and registry
    }

    private void run() throws Exception {
        String loadBefore = ServiceProbe.load();
        TetherStack stack = TetherStack.shared();
        String prefix = "soak-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        var env = ServiceProcess.env("TETHER_TOPICS_PREFIX", prefix, "TETHER_WORKSPACE_ROOT", workDir.resolve("workspaces").toString(),
                "TETHER_SESSIONS_BLOBS_DIR", workDir.resolve("blobs").toString());
        var a = executor("a", env);
        var b = executor("b", env);
        try (a; b; Admin admin = Admin.create(stack.clientConfig());
             var values = AvroSerdes.<ToolRequest>valueSerde(stack.registryUrl());
             var producer = new KafkaProducer<>(ProducerSettings.reliable(stack.clientConfig())
                     .with(ProducerConfig.CLIENT_ID_CONFIG, "executor-soak").partitionedBySession().lingerMs(10).toMap(),
                     new StringSerializer(), values.serializer())) {
            var watch = new ProjectionCatchUp(admin);
            String group = prefix + "tether-tool-executor";
            String requests = prefix + "tool-requests";
            log("soak: %,d calls over %,d sessions, heap sampled every %,d, %d calls at once; load average %s", calls, sessions, step,
                    CONCURRENCY, loadBefore);
            a.start();

            ServiceProcess current = a;
            var table = new StringBuilder("| calls | live heap after full GC (old gen, MiB) | ledger window (calls) | calls/s of the step | load average |\n|---|---|---|---|---|\n");
            var takeovers = new StringBuilder();
            double firstTakeover = 0;
            for (int done = 0; done < calls; ) {
                int next = Math.min(calls, done + step);
                long started = System.nanoTime();
                for (int i = done; i < next; i++) {
                    send(producer, requests, request(i));
                }
                producer.flush();
                watch.awaitCaughtUp(group, requests, Duration.ofMinutes(30), 200);
                double rate = (next - done) / ((System.nanoTime() - started) / 1e9);
                done = next;
                double heap = ServiceProbe.liveHeapAfterFullGc(current);
                long window = (long) metric(current, "tether_executor_ledger_cached_calls");
                log("%,d calls: heap after full GC %.1f MiB, ledger window %,d calls, %.0f calls/s", done, heap, window, rate);
                table.append("| %,d | %.1f | %,d | %.0f | %s |%n".formatted(done, heap, window, rate, ServiceProbe.load()));
                if (done == step || done == calls) {
                    ServiceProcess successor = current == a ? b : a;
                    double seconds = takeover(current, successor, producer, requests, watch, group, done);
                    if (done == step) {
                        firstTakeover = seconds;
                    }
                    double read = metric(successor, "tether_executor_ledger_records_read_total{reason=\"takeover\"}");
                    takeovers.append("| %,d | %.1f | %,.0f | %s |%n".formatted(done, seconds, read, ServiceProbe.load()));
                    current = successor;
                }
            }
            log("%n%s%n| takeover after SIGKILL at | seconds (kill → a probe on every partition handled) | ledger records the successor read to take over | load average |%n|---|---|---|---|%n%s",
                    table, takeovers);
            log("takeover at %,d calls / at %,d: %.2f×; load average before %s, after %s", calls, step,
                    lastTakeover(takeovers) / firstTakeover, loadBefore, ServiceProbe.load());
        }
    }

    /** Starts {@code successor}, SIGKILLs {@code current} once it has joined, and times until a probe per partition is handled. */
    private double takeover(ServiceProcess current, ServiceProcess successor, KafkaProducer<String, ToolRequest> producer,
            String requests, ProjectionCatchUp watch, String group, int done) throws Exception {
        successor.start();
        Thread.sleep(5_000); // the group has rebalanced over both
        long killed = System.nanoTime();
        current.kill();
        // two fresh sessions per partition: few calls, so the time is the takeover's, not the calls'
        int partitions = producer.partitionsFor(requests).size();
        int[] probes = new int[partitions];
        for (int i = 0; Arrays.stream(probes).anyMatch(n -> n < 2); i++) {
            ToolRequest probe = probe(done, i);
            int partition = SessionPartitioner.partition(probe.getSessionId(), partitions);
            if (probes[partition] < 2) {
                probes[partition]++;
                send(producer, requests, probe);
            }
        }
        producer.flush();
        long handled = watch.awaitCaughtUp(group, requests, Duration.ofMinutes(10), 100);
        double seconds = (handled - killed) / 1e9;
        log("takeover at %,d calls: %.1f s from the SIGKILL to every probe handled", done, seconds);
        return seconds;
    }

    /** As the projector writes a request: keyed by its idempotency key, on the partition of its session. */
    private static void send(KafkaProducer<String, ToolRequest> producer, String topic, ToolRequest request) {
        producer.send(new ProducerRecord<>(topic, request.getIdempotencyKey(), request));
    }

    private ServiceProcess executor(String name, java.util.Map<String, String> env) {
        var own = new java.util.LinkedHashMap<>(env);
        own.put("TETHER_INSTANCE_ID", "soak-executor-" + name);
        return new ServiceProcess(root.resolve("tool-executor"), workDir.resolve("executor-" + name), own,
                List.of("-Dtether.executor.concurrency=" + CONCURRENCY));
    }

    private ToolRequest request(int call) {
        String session = "soak-s" + (call % sessions);
        return call(session, 2L + 2L * (call / sessions), "call-" + call);
    }

    private static ToolRequest probe(int done, int i) {
        return call("soak-probe-" + done + "-" + i, 2, "probe");
    }

    private static ToolRequest call(String session, long seq, String callId) {
        return ToolRequest.newBuilder()
                .setIdempotencyKey(IdempotencyKey.of(session, seq, callId)).setSessionId(session).setTenantId("acme")
                .setCallId(callId).setTool("list_dir").setArgumentsJson("{\"path\":\".\"}").setRequestSeq(seq)
                .setAuthorizedSeq(seq + 1).setBasis(new AuthorizationBasis(AuthorizationBasisKind.POLICY, null, null, null))
                .setToolMode(ToolMode.READ_ONLY).setHarnessVersion("v1").setRequestedAt(Instant.now())
                .build();
    }

    private static double metric(ServiceProcess service, String name) throws Exception {
        for (String line : ServiceProbe.metrics(service).split("\n")) {
            // Quarkus adds an application tag: match the name and every wanted tag
            String base = name.contains("{") ? name.substring(0, name.indexOf('{')) : name;
            String tag = name.contains("{") ? name.substring(name.indexOf('{') + 1, name.length() - 1) : "";
            if ((line.startsWith(base + " ") || line.startsWith(base + "{")) && line.contains(tag)) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return -1;
    }

    private static double lastTakeover(StringBuilder takeovers) {
        String[] rows = takeovers.toString().trim().split("\n");
        return Double.parseDouble(rows[rows.length - 1].split("\\|")[2].trim());
    }

    private void log(String format, Object... args) {
        System.out.println(format.formatted(args));
    }

}
