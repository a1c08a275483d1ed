package dev.tether.executor.kafka;

import dev.tether.avro.SessionEvent;
import dev.tether.avro.ToolOutcome;
import dev.tether.avro.ToolRequest;
import dev.tether.core.blob.BlobOffloader;
import dev.tether.core.blob.LocalBlobStore;
import dev.tether.core.event.ToolMode;
import dev.tether.executor.config.ExecutorConfig;
import dev.tether.executor.domain.Authority;
import dev.tether.kit.kafka.AvroSerdes;
import dev.tether.kit.kafka.NominatingBlobStore;
import dev.tether.kit.kafka.ProducerSettings;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import dev.tether.kit.service.RegistryAccess;
import dev.tether.kit.service.TetherConfig;
import dev.tether.tools.HttpFetchPolicy;
import dev.tether.tools.ToolRegistry;
import dev.tether.tools.sandbox.CommandRunner;
import dev.tether.tools.sandbox.Isolation;
import dev.tether.tools.sandbox.MapSecretProvider;
import dev.tether.tools.sandbox.RunnerConfig;
import dev.tether.tools.sandbox.WorkspaceRoot;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Starts the executor once the topics and schemas are verified, and stops it with the service: the request loop
 * ({@link ExecutorLoop}), the interruption watcher ({@link InterruptWatcher}) and the worker threads that run tools.
 */
@ApplicationScoped
public class Executor {

    private static final Logger LOG = Logger.getLogger(Executor.class);

    private final TetherConfig tether;
    private final ExecutorConfig config;
    private final RegistryAccess registryAccess;
    private final String bootstrapServers;
    private final MeterRegistry meters;
    private ExecutorService workers;
    private KafkaOutcomeLog outcomes;
    private Producer<String, SpecificRecord> producer;
    private LedgerTransactions transactions;
    private NominatingBlobStore blobs;
    private ExecutorLoop loop;
    private InterruptWatcher watcher;
    private Thread loopThread;
    private Thread watcherThread;
    private Isolation isolation;

    Executor(TetherConfig tether, ExecutorConfig config, RegistryAccess registryAccess,
             @ConfigProperty(name = "kafka.bootstrap.servers") String bootstrapServers, MeterRegistry meters) {
        this.tether = tether;
        this.config = config;
        this.registryAccess = registryAccess;
        this.bootstrapServers = bootstrapServers;
        this.meters = meters;
    }

    /**
     * What a command may neither read nor change: the blob store (every tenant's offloaded output), the executor's own
     * application (overwritten, it would run the command's code as the executor at its next start) and the configured
     * directories. Where the command user is the executor's own (the executor not root), its files are otherwise the
     * command's at their absolute paths.
     */
    static List<Path> hiddenFromCommands(String blobDir, Optional<List<String>> configured, Optional<Path> application) {
        var hidden = new ArrayList<Path>();
        hidden.add(Path.of(blobDir).toAbsolutePath().normalize());
        application.ifPresent(hidden::add);
        configured.orElse(List.of()).forEach(p -> hidden.add(Path.of(p).toAbsolutePath().normalize()));
        return hidden.stream().distinct().toList();
    }

    /** The directory the executor runs from (Quarkus' application directory, holding {@code quarkus-run.jar}), if it can tell. */
    static Optional<Path> applicationDirectory() {
        try {
            Path at = Path.of(Executor.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            for (Path dir = at; dir != null; dir = dir.getParent()) {
                if (Files.isRegularFile(dir.resolve("quarkus-run.jar"))) {
                    return Optional.of(dir);
                }
            }
        } catch (RuntimeException | java.net.URISyntaxException e) {
            LOG.debugf("cannot tell the executor's application directory: %s", e.toString());
        }
        return Optional.empty();
    }

    /** {@code tether.executor.concurrency}, checked before anything starts: at least one call must be able to run. */
    static int concurrency(int configured) {
        if (configured < 1) {
            throw new IllegalArgumentException("tether.executor.concurrency: how many calls run at once must be at least 1, not "
                    + configured);
        }
        return configured;
    }

    /** After {@code InfrastructureInit} (default priority): the topics exist and are verified. */
    void onStart(@Observes @Priority(3000) StartupEvent event) {
        int concurrency = concurrency(config.concurrency());
        TopicLayout layout = tether.layout();
        var commands = config.commands();
        var runnerConfig = RunnerConfig.defaults()
                .withTimeout(commands.timeout())
                .withOutputCapBytes(commands.outputCapBytes())
                .withMemoryLimitBytes(commands.memoryLimitBytes())
                .withMaxProcesses(commands.maxProcesses())
                .withNetworkAccess(commands.network())
                .withAllowNetworkWhenIsolationUnavailable(commands.allowUnisolated())
                .withHiddenPaths(hiddenFromCommands(config.blobs().dir(), commands.hiddenPaths(), applicationDirectory()));
        CommandRunner runner = CommandRunner.detecting(runnerConfig);
        isolation = runner.isolation();
        if (isolation instanceof Isolation.Unavailable unavailable) {
            LOG.warnf("commands cannot be isolated on this host (%s): run_command %s", unavailable.reason(),
                    commands.allowUnisolated() ? "runs WITHOUT network or PID isolation (allow-unisolated=true)"
                            : "refuses every command (set tether.executor.commands.allow-unisolated=true to run them anyway)");
        } else {
            LOG.infof("commands run isolated: %s", isolation);
        }
        var registryOfTools = tools(config.http());
        var authority = new Authority(registryOfTools, tether.gatingPolicy(registryOfTools.names()));
        // every output put is nominated for deletion, kept while a session refers to it: an output never reported goes too
        blobs = new NominatingBlobStore(new LocalBlobStore(Path.of(config.blobs().dir())), new KafkaProducer<>(
                ProducerSettings.reliable(bootstrapServers, config.instanceId() + "-blobs").lingerMs(1).toMap(), new StringSerializer(),
                new ByteArraySerializer()), layout.name(Topics.BLOB_REFERENCES));
        var offloader = new BlobOffloader(blobs, config.blobs().thresholdBytes(), BlobOffloader.DEFAULT_PREVIEW_CHARS);
        var workspaces = new WorkspaceRoot(Path.of(config.workspaces()), isolation.commandUser());
        var crashPoints = new CrashPoints(config.test().crashAt(), config.test().freezeAt(), config.test().crashMarker());

        producer = new KafkaProducer<>(producerConfig(), new StringSerializer(), this.<SpecificRecord>serde().serializer());
        transactions = new LedgerTransactions(n -> new KafkaProducer<>(transactionalConfig(n), new StringSerializer(),
                this.<SpecificRecord>serde().serializer()), Math.min(concurrency, LedgerTransactions.MOST_PRODUCERS));
        var writer = new AckedWriter(producer, transactions, layout);
        var ledgerSettings = config.ledger();
        var uncommitted = consumerConfig(null, false);
        uncommitted.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        outcomes = new KafkaOutcomeLog(new KafkaConsumer<>(consumerConfig(null, false), new StringDeserializer(),
                this.<ToolOutcome>serde().deserializer()), new KafkaConsumer<>(uncommitted, new ByteArrayDeserializer(),
                new ByteArrayDeserializer()), layout.name(Topics.TOOL_OUTCOMES), ledgerSettings.readTimeout());
        var ledger = new Ledger(outcomes, writer, new Ledger.Settings(ledgerSettings.cacheCalls(), ledgerSettings.clockSkew()),
                Clock.systemUTC());
        LedgerMetrics.register(meters, ledger);
        var inFlight = new InFlight();
        var sandbox = new Sandbox(workspaces, runner, new MapSecretProvider(config.secrets()), offloader);
        watcher = new InterruptWatcher(new KafkaConsumer<>(consumerConfig(null, false), new ByteArrayDeserializer(),
                this.<SessionEvent>serde().deserializer()), inFlight, layout, config.interruptions().catchUpTimeout(),
                config.interruptions().lookBack(), sandbox::erase);
        var handler = new CallHandler(ledger, writer, authority, sandbox, inFlight, watcher::catchUp, crashPoints, config.instanceId(),
                Clock.systemUTC());
        workers = Executors.newFixedThreadPool(concurrency, named("tool-call"));
        loop = new ExecutorLoop(
                new KafkaConsumer<>(consumerConfig(layout.prefix() + "tether-tool-executor", true),
                        new StringDeserializer(), this.<ToolRequest>serde().deserializer()),
                ledger, handler, workers, layout);
        Gauge.builder("tether.executor.calls.in.progress", loop, ExecutorLoop::inProgress)
                .description("tool calls read and not ended: running, waiting their turn, or to be read again")
                .register(meters);
        loopThread = named("tool-requests").newThread(loop);
        watcherThread = named("interrupt-watcher").newThread(watcher);
        loopThread.start();
        watcherThread.start();
        LOG.infof("tool executor %s started: tools %s (read-only sessions: %s), %d at once, workspaces in %s",
                config.instanceId(), registryOfTools.forMode(ToolMode.WRITE).names(),
                registryOfTools.forMode(ToolMode.READ_ONLY).names(), concurrency,
                workspaces.directory());
    }

    void onStop(@Observes ShutdownEvent event) {
        if (loop == null) {
            return;
        }
        loop.stop();
        watcher.stop();
        join(loopThread);
        join(watcherThread);
        workers.shutdownNow();
        // a call still running after the loop's wait is interrupted: it records how it ended before the producer closes
        awaitTermination(workers);
        outcomes.close();
        transactions.close();
        producer.close();
        blobs.close();
    }

    /**
     * The tools calls run with: {@link ToolRegistry#builtIn}, the registry the approval-service previews them with (its
     * previews look up no address, so whether private ones are allowed is the executor's alone).
     */
    static ToolRegistry tools(ExecutorConfig.Http http) {
        return ToolRegistry.builtIn(HttpFetchPolicy.allowing(http.allowedHosts().orElse(List.of()))
                .withPrivateAddresses(http.allowPrivateAddresses()));
    }

    /** Whether the executor takes requests: joined its group and watches interruptions. */
    public boolean ready() {
        return loop != null && loop.ready() && watcher.ready() && loopThread.isAlive();
    }

    /** How commands are isolated here, for the readiness check; null before start. */
    public Isolation isolation() {
        return isolation;
    }

    private Map<String, Object> producerConfig() {
        return ProducerSettings.reliable(bootstrapServers, config.instanceId() + "-producer").lingerMs(0).partitionedBySession().toMap();
    }

    /**
     * The producer of a worker's fenced first writes ({@link LedgerTransactions}): a transactional id of its own, the same
     * after a restart; a transaction holds one record and an offset, so one left open by a frozen instance, which the
     * partition's next owner waits for, is aborted after 10 s rather than the default minute.
     */
    private Map<String, Object> transactionalConfig(int worker) {
        var props = producerConfig();
        props.put(ProducerConfig.CLIENT_ID_CONFIG, config.instanceId() + "-ledger-" + worker);
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, config.instanceId() + "-ledger-" + worker);
        props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 10_000);
        return props;
    }

    private Map<String, Object> consumerConfig(String groupId, boolean member) {
        var props = new HashMap<String, Object>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        if (member) {
            props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
            // static membership: a restarted instance takes its partitions back at once
            props.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, config.instanceId());
            props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 15_000);
            props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 100);
        }
        return props;
    }

    /** Through the service's one registry connection: every lookup with the {@code tether.registry.*} deadlines. */
    private <T extends SpecificRecord> Serde<T> serde() {
        return AvroSerdes.valueSerde(registryAccess.connection());
    }

    private static ThreadFactory named(String name) {
        var counter = new AtomicInteger();
        return runnable -> {
            var thread = new Thread(runnable, name + "-" + counter.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    private static void awaitTermination(ExecutorService workers) {
        try {
            if (!workers.awaitTermination(10, TimeUnit.SECONDS)) {
                LOG.warn("tool calls still running 10 s after they were interrupted at shutdown: they may end UNKNOWN");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void join(Thread thread) {
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
