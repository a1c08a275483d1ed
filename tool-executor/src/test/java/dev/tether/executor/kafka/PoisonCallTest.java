package dev.tether.executor.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.avro.AuthorizationBasis;
import dev.tether.avro.AuthorizationBasisKind;
import dev.tether.avro.OutcomeState;
import dev.tether.avro.ToolMode;
import dev.tether.avro.ToolOutcome;
import dev.tether.avro.ToolRequest;
import dev.tether.core.blob.BlobOffloader;
import dev.tether.core.blob.LocalBlobStore;
import dev.tether.core.policy.GatingPolicy;
import dev.tether.executor.domain.Authority;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.tools.HttpFetchPolicy;
import dev.tether.tools.ToolRegistry;
import dev.tether.tools.sandbox.CommandRunner;
import dev.tether.tools.sandbox.Isolation;
import dev.tether.tools.sandbox.MapSecretProvider;
import dev.tether.tools.sandbox.RunnerConfig;
import dev.tether.tools.sandbox.SandboxUser;
import dev.tether.tools.sandbox.WorkspaceRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A grep whose pattern recurses once per character of a long line throws {@link StackOverflowError} on a
 * {@code tool-call} worker. The handler caught only {@code ToolException} and {@code RuntimeException}, so it escaped
 * {@link CallHandler#handle}; {@link ExecutorLoop} then failed the whole batch and rewound it, and the call, STARTED and
 * reconciled NotApplied (a read), ran again: for ever, and every other call of its partition waited behind it. The grep
 * no longer recurses; the handler now ends any tool's {@code Error} as the call's ERROR too
 * ({@code CallHandlerTest.anErrorThrownByATool_...}).
 */
class PoisonCallTest {

    private static final TopicLayout LAYOUT = TopicLayout.local();
    private static final String SESSION = "s1";
    private static final ToolRegistry BUILT_INS = ToolRegistry.builder().addBuiltIns(HttpFetchPolicy.denyAll()).build();

    @TempDir
    Path dir;

    private final MockProducer<String, SpecificRecord> producer =
            new MockProducer<>(true, null, new StringSerializer(), (Serializer<SpecificRecord>) (topic, value) -> new byte[0]);
    private final MemoryOutcomeLog outcomes = new MemoryOutcomeLog(1);
    private final Ledger ledger = new Ledger(outcomes, new AckedWriter(producer, new FencedWritesDouble(producer), LAYOUT),
            new Ledger.Settings(20_000, Duration.ofMinutes(1)), Clock.fixed(Instant.parse("2026-11-29T10:00:00Z"), ZoneOffset.UTC));
    /** Threads of the default stack size, as Executor's {@code tool-call} pool. */
    private final ExecutorService workers = Executors.newFixedThreadPool(1);

    @AfterEach
    void stopWorkers() {
        workers.shutdownNow();
    }

    private CallHandler handler() {
        var runner = new CommandRunner(RunnerConfig.defaults().withSandboxUser(SandboxUser.current().isRoot()
                ? SandboxUser.NOBODY : SandboxUser.current()), Isolation.Unavailable.because("not needed by this test"));
        var authority = new Authority(BUILT_INS, GatingPolicy.of("run_command", Map.of(), BUILT_INS.names()));
        var sandbox = new Sandbox(new WorkspaceRoot(dir.resolve("ws"), SandboxUser.current()), runner,
                new MapSecretProvider(Map.of()), new BlobOffloader(new LocalBlobStore(dir.resolve("blobs"))));
        return new CallHandler(ledger, new AckedWriter(producer, new FencedWritesDouble(producer), LAYOUT), authority, sandbox, new InFlight(),
                (sessionId, requestedAt) -> {}, CrashPoints.none(), "executor-1",
                Clock.fixed(Instant.parse("2026-11-29T10:00:00Z"), ZoneOffset.UTC));
    }

    @Test
    void aGrepThatOverflowsTheStack_endsAsAnError_insteadOfFailingTheBatch() throws Exception {
        var handler = handler();
        Path workspace = dir.resolve("ws").resolve(SESSION);
        Files.createDirectories(workspace);
        Files.writeString(workspace.resolve("long.txt"), "a".repeat(9_000) + "\n");
        ToolRequest request = ToolRequest.newBuilder()
                .setIdempotencyKey(SESSION + "/3/c1").setSessionId(SESSION).setTenantId("acme").setCallId("c1").setTool("grep")
                .setArgumentsJson("{\"pattern\":\"(a|b)*c\"}").setRequestSeq(3).setAuthorizedSeq(4)
                .setBasis(new AuthorizationBasis(AuthorizationBasisKind.POLICY, null, null, null)).setToolMode(ToolMode.READ_ONLY)
                .setHarnessVersion("v1").setRequestedAt(Instant.parse("2026-11-29T09:59:00Z"))
                .build();

        Throwable failed = null;
        try {
            CompletableFuture.runAsync(() -> handler.handle(request), workers).join(); // as ExecutorLoop runs it
        } catch (CompletionException e) {
            failed = e.getCause();
        }

        assertThat(failed).as("what escaped the handler (ExecutorLoop rewinds the batch and retries it for ever)").isNull();
        assertThat(producer.history()).filteredOn(r -> r.value() instanceof ToolOutcome)
                .extracting(r -> ((ToolOutcome) r.value()).getState())
                .containsExactly(OutcomeState.STARTED, OutcomeState.ERROR);
    }
}
