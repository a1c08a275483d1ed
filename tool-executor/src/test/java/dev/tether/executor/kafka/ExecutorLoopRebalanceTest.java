package dev.tether.executor.kafka;

import static dev.tether.executor.kafka.TicketTool.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.avro.SessionCommand;
import dev.tether.avro.ToolOutcome;
import dev.tether.avro.ToolRequest;
import dev.tether.core.blob.BlobOffloader;
import dev.tether.core.blob.LocalBlobStore;
import dev.tether.core.policy.GatingPolicy;
import dev.tether.executor.domain.Authority;
import dev.tether.kit.kafka.SessionPartitioner;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import dev.tether.tools.ToolContext;
import dev.tether.tools.ToolOutput;
import dev.tether.tools.sandbox.CommandRunner;
import dev.tether.tools.sandbox.Isolation;
import dev.tether.tools.sandbox.MapSecretProvider;
import dev.tether.tools.sandbox.RunnerConfig;
import dev.tether.tools.sandbox.SandboxUser;
import dev.tether.tools.sandbox.WorkspaceRoot;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The executor's loop while calls run: another session's call beside a long one, a rebalance, a refused first write and a
 * commit that fails. No request is dropped, none is committed past before it ended, the loop goes on.
 */
class ExecutorLoopRebalanceTest {

    private static final TopicLayout LAYOUT = TopicLayout.local();
    private static final String TOPIC = LAYOUT.name(Topics.TOOL_REQUESTS);
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-29T10:00:00Z"), ZoneOffset.UTC);

    @TempDir
    Path dir;

    private final ExecutorService workers = Executors.newFixedThreadPool(2);
    private FencedWritesDouble fenced;
    private ExecutorLoop loop;
    private Thread thread;
    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch bothEntered = new CountDownLatch(2);
    private Ledger ledger;
    private final CountDownLatch release = new CountDownLatch(1);
    /** The interruption watcher's catch-up, the barrier a call passes before it starts: here it passes at once. */
    private InterruptWatcher.CatchUp catchUp = (sessionId, requestedAt) -> {};

    /** Counts its executions; the call with callId "slow" waits until the test releases it. */
    private final TicketTool tickets = new TicketTool() {
        @Override
        public ToolOutput execute(ToolContext context, JsonNode arguments) {
            if (context.idempotencyKey().contains("/slow")) {
                entered.countDown();
                bothEntered.countDown();
                try {
                    release.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return super.execute(context, arguments);
        }
    };

    @AfterEach
    void stop() throws InterruptedException {
        release.countDown();
        if (loop != null) {
            loop.stop();
            thread.join(10_000);
        }
        workers.shutdownNow();
    }

    /**
     * One session's long call held up every other session's calls on the instance: the loop ran a poll's calls as one
     * batch and read nothing more until the whole batch was done (a 20-second command held another session's
     * {@code read_file} for 18 s). Now another session's call, read while the long one runs, runs beside it; the long
     * call's session's next call still waits for it; and the partition is committed only up to its oldest call not ended.
     */
    @Test
    void anotherSessionsCall_runsWhileALongCallRuns_itsOwnSessionsNextWaits_andTheCommitStaysBelowTheLongCall() {
        List<String> onP0 = sessionsOn(0, 2, 2);
        String a = onP0.get(0);
        String b = onP0.get(1);
        var requests = new LogConsumer<String, ToolRequest>(TOPIC, 2);
        var outcomes = new MemoryOutcomeLog(2);
        requests.append(P0, a, request(a, "slow"));
        start(requests, outcomes, List.of(P0, P1));
        awaitEntered();

        requests.append(P0, a, request(a, "c2"));
        requests.append(P0, b, request(b, "c1"));
        await().atMost(Duration.ofSeconds(10)).until(() -> tickets.external.containsKey(b + "/3/c1"));
        assertThat(tickets.external.keySet()).as("a's next call waits for a's slow one, still running")
                .doesNotContain(a + "/3/slow", a + "/3/c2");
        assertThat(committed(requests, P0)).as("nothing committed past the slow call at offset 0, not ended").isLessThanOrEqualTo(0L);

        release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> committed(requests, P0) == 3L);
        assertThat(tickets.external.keySet()).contains(a + "/3/slow", a + "/3/c2", b + "/3/c1");
        assertThat(tickets.executions).as("each call ran once").hasValue(3);
    }

    /**
     * Read while a long call runs, the calls queued behind it wait in memory: past {@link ExecutorLoop#READ_AHEAD}
     * requests read and not ended, nothing more is read until calls end; then everything runs, once.
     */
    @Test
    void pastTheReadAhead_nothingMoreIsRead_untilCallsEnd() throws InterruptedException {
        String a = sessionOn(0, 2);
        var requests = new LogConsumer<String, ToolRequest>(TOPIC, 2);
        var outcomes = new MemoryOutcomeLog(2);
        requests.append(P0, a, request(a, "slow"));
        start(requests, outcomes, List.of(P0));
        awaitEntered();

        for (int i = 0; i < ExecutorLoop.READ_AHEAD; i++) {
            requests.append(P0, a, request(a, "q" + i));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> requests.position(P0) == ExecutorLoop.READ_AHEAD + 1);
        requests.append(P0, a, request(a, "late"));
        Thread.sleep(1_000); // the loop polls several times
        assertThat(requests.position(P0)).as("nothing read past the read-ahead while the slow call runs")
                .isEqualTo(ExecutorLoop.READ_AHEAD + 1);
        assertThat(loop.inProgress()).as("the slow call and the ones queued behind it").isEqualTo(ExecutorLoop.READ_AHEAD + 1);

        release.countDown();
        await().atMost(Duration.ofSeconds(30)).until(() -> committed(requests, P0) == ExecutorLoop.READ_AHEAD + 2);
        assertThat(tickets.executions).as("each call ran once").hasValue(ExecutorLoop.READ_AHEAD + 2);
        await().atMost(Duration.ofSeconds(5)).until(() -> loop.inProgress() == 0);
    }

    /**
     * A partition assigned to this instance while a call runs (another executor left the group; with the cooperative or
     * the KIP-848 protocol nothing is revoked) returns its records to the polls: they were once thrown away, and a later
     * commit passed them, so the call was never run nor reported. They run now, beside the running call.
     */
    @Test
    void aPartitionAssignedWhileACallRuns_itsRequestsRunBesideIt_notDropped() {
        String a = sessionOn(0, 2);
        String b = sessionOn(1, 2);
        var requests = new LogConsumer<String, ToolRequest>(TOPIC, 2);
        var outcomes = new MemoryOutcomeLog(2);
        requests.append(P0, a, request(a, "slow"));
        start(requests, outcomes, List.of(P0));
        awaitEntered();

        // the group rebalances while the slow call runs: P1 comes to this instance, with a request on it
        requests.append(P1, b, request(b, "c1"));
        requests.schedulePollTask(() -> requests.rebalance(List.of(P0, P1)));
        await().atMost(Duration.ofSeconds(10)).until(() -> committed(requests, P1) == 1L);
        assertThat(tickets.external.keySet()).as("P1's call ran while P0's slow one runs").contains(b + "/3/c1")
                .doesNotContain(a + "/3/slow");
        release.countDown();

        await().atMost(Duration.ofSeconds(10)).until(() -> committed(requests, P0) == 1L);
        requests.append(P1, b, request(b, "c2"));
        await().atMost(Duration.ofSeconds(10)).until(() -> committed(requests, P1) == 2L);
        assertThat(tickets.external.keySet()).contains(a + "/3/slow", b + "/3/c1", b + "/3/c2");
    }

    /**
     * A partition assigned while a call runs whose first record cannot be read (a schema id the registry does not know):
     * the poll that threw once left the running batch behind, never to be committed or rewound. Now the record is
     * skipped, the partition's next call runs, and the running call's partition is committed once it ends.
     */
    @Test
    void aPartitionAssignedWhileACallRuns_whoseRecordCannotBeRead_isReadPastIt_andTheRunningCallIsCommitted() {
        String a = sessionOn(0, 2);
        String b = sessionOn(1, 2);
        var requests = new LogConsumer<String, ToolRequest>(TOPIC, 2);
        var outcomes = new MemoryOutcomeLog(2);
        requests.append(P0, a, request(a, "slow"));
        start(requests, outcomes, List.of(P0));
        awaitEntered();

        requests.appendUndecodable(P1, b);
        requests.append(P1, b, request(b, "c1"));
        requests.schedulePollTask(() -> requests.rebalance(List.of(P0, P1)));
        await().atMost(Duration.ofSeconds(10)).until(() -> committed(requests, P1) == 2L);
        assertThat(tickets.external.keySet()).contains(b + "/3/c1").doesNotContain(a + "/3/slow");
        release.countDown();

        await().atMost(Duration.ofSeconds(10)).until(() -> committed(requests, P0) == 1L);
        assertThat(tickets.external.keySet()).contains(a + "/3/slow", b + "/3/c1");
    }

    /**
     * A partition given up while its calls run: the revocation waited for the whole batch, which may take longer than the
     * group's rebalance timeout (100 requests, a minute each), and meanwhile the partition's next owner ran the calls not
     * yet started, which this instance then started too. Now none of them starts here: the one running finishes, and the
     * partition is committed up to the first call not started.
     */
    @Test
    void aPartitionRevokedWhileItsCallRuns_startsNoMoreOfItsCalls_andIsCommittedOnlyThroughThoseRun() throws InterruptedException {
        String a = sessionOn(0, 2);
        var requests = new LogConsumer<String, ToolRequest>(TOPIC, 2);
        var outcomes = new MemoryOutcomeLog(2);
        requests.append(P0, a, request(a, "slow"));
        requests.append(P0, a, request(a, "c2"));
        start(requests, outcomes, List.of(P0));
        awaitEntered();

        requests.schedulePollTask(() -> requests.rebalance(List.of(P1))); // P0 goes to another executor
        Thread.sleep(500); // the revocation waits for the slow call
        release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> !requests.commits.isEmpty());
        Thread.sleep(500);

        assertThat(tickets.external.keySet()).as("the call running finished; the next one is its next owner's")
                .contains(a + "/3/slow").doesNotContain(a + "/3/c2");
        assertThat(requests.commits).as("committed through the call run, not the one left")
                .containsExactly(Map.of(P0, new OffsetAndMetadata(1)));
    }

    /**
     * An instance expelled from the group without knowing it yet (frozen past its session timeout): its consumer still
     * holds the partition, so no claim stops the session's next call; the group coordinator refuses that call's first
     * write, whose transaction commits the partition's watermark under the generation the request was read in. The call
     * starts nothing here, and the partition is committed up to it, never past. Every first write is fenced with its
     * partition's oldest offset not ended (0 for the slow call; 1 for the next, the slow one ended): committing it moves
     * nothing past a call not ended. The partition still here (its generation changed without a revocation), the refused
     * call is read again, and runs once its write is accepted: it was left behind the position, never to come again until
     * the partition moved.
     */
    @Test
    void aCallWhoseFirstWriteTheCoordinatorRefuses_startsNothing_isCommittedNoFurther_andComesAgain() throws InterruptedException {
        String a = sessionOn(0, 2);
        var requests = new LogConsumer<String, ToolRequest>(TOPIC, 2);
        var outcomes = new MemoryOutcomeLog(2);
        requests.append(P0, a, request(a, "slow"));
        requests.append(P0, a, request(a, "c2"));
        start(requests, outcomes, List.of(P0));
        awaitEntered();

        fenced.expel(); // the slow call is running: the coordinator expelled this member meanwhile
        release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> !requests.commits.isEmpty());
        Thread.sleep(500);

        assertThat(tickets.external.keySet()).as("the call running finished; the next one's STARTED was refused")
                .contains(a + "/3/slow").doesNotContain(a + "/3/c2");
        assertThat(requests.commits.get(0)).as("committed through the call run, not the one refused").isEqualTo(Map.of(P0, new OffsetAndMetadata(1)));
        assertThat(List.copyOf(fenced.fences).subList(0, 2)).as("both first writes fenced by the generation and P0's oldest call not ended")
                .extracting(Fence::partition, Fence::from, f -> f.group().groupId())
                .containsExactly(tuple(P0, 0L, requests.groupMetadata().groupId()), tuple(P0, 1L, requests.groupMetadata().groupId()));

        fenced.readmit(); // the member joined again: its next attempt is accepted
        await().atMost(Duration.ofSeconds(10)).until(() -> committed(requests, P0) == 2L);
        assertThat(tickets.external.keySet()).as("the refused call came again and ran").contains(a + "/3/c2");
        assertThat(tickets.executions).as("each call ran once").hasValue(2);
    }

    /**
     * A lookup that waited for a worker (every worker on a long call) past its partition's revocation starts no ledger
     * window of that partition: the window was dropped when the partition was given up, and one started after it would
     * be held, and read, for a partition no longer here.
     */
    @Test
    void aLookupThatWaitsForAWorkerPastItsPartitionsRevocation_startsNoWindowOfIt() throws InterruptedException {
        String c = sessionOn(0, 2);
        List<String> onP1 = sessionsOn(1, 2, 2);
        var requests = new LogConsumer<String, ToolRequest>(TOPIC, 2);
        var outcomes = new MemoryOutcomeLog(2);
        requests.append(P0, c, request(c, "c1"));
        start(requests, outcomes, List.of(P0, P1));
        await().atMost(Duration.ofSeconds(10)).until(() -> committed(requests, P0) == 1L); // P0's window holds c1 now
        onP1.forEach(session -> requests.append(P1, session, request(session, "slow")));
        assertThat(bothEntered.await(10, TimeUnit.SECONDS)).as("both workers on a slow call").isTrue();

        requests.append(P0, c, request(c, "c2")); // read; its lookup waits for a worker
        Thread.sleep(500);
        requests.schedulePollTask(() -> requests.rebalance(List.of(P1))); // P0 goes to another executor
        await().atMost(Duration.ofSeconds(10)).until(() -> !requests.assignment().contains(P0));
        release.countDown();

        await().atMost(Duration.ofSeconds(10)).until(() -> committed(requests, P1) == 2L);
        Thread.sleep(500);
        assertThat(tickets.external.keySet()).as("not started: its next owner's").doesNotContain(c + "/3/c2");
        assertThat(ledger.cachedCalls()).as("no window of P0 again (it would hold c1); P1's read nothing").isZero();
    }

    /**
     * A call that passed the loop's look at its partition and then waited (its catch-up with the session's interruptions
     * takes up to {@code interruptions.catch-up-timeout}; its reconciliation, its intent) when the partition was given up:
     * it still started, after the revocation, and if the revocation outlasted the group's rebalance timeout (another call
     * running long), beside its next owner, which runs it too. Now whether the partition is still this
     * instance's is asked again right before the call's first ledger write: it does not start, and the partition is
     * committed up to it, for its next owner to run.
     */
    @Test
    void aCallWhosePartitionIsRevokedWhileItWaitsToStart_doesNotStart_andIsLeftToItsNextOwner() throws InterruptedException {
        String a = sessionOn(0, 2);
        var requests = new LogConsumer<String, ToolRequest>(TOPIC, 2);
        var outcomes = new MemoryOutcomeLog(2);
        var catchingUp = new CountDownLatch(1);
        catchUp = (sessionId, requestedAt) -> {
            catchingUp.countDown();
            try {
                release.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        requests.append(P0, a, request(a, "c1"));
        start(requests, outcomes, List.of(P0));
        assertThat(catchingUp.await(10, TimeUnit.SECONDS)).as("the call is catching up").isTrue();

        requests.schedulePollTask(() -> requests.rebalance(List.of(P1))); // P0 goes to another executor
        Thread.sleep(500); // the revocation waits for the call, which has passed the loop's look at its partition
        release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> !requests.commits.isEmpty());
        Thread.sleep(500);

        assertThat(tickets.external.keySet()).as("given up before it started: its next owner's to run").doesNotContain(a + "/3/c1");
        assertThat(outcomes.entries(0)).as("nothing recorded for it here").isEmpty();
        assertThat(requests.commits).as("committed up to the call not started").containsExactly(Map.of(P0, new OffsetAndMetadata(0)));
    }

    /**
     * A commit that fails (the group coordinator does not answer within default.api.timeout.ms, a rebalance is in
     * progress: RebalanceInProgressException, the membership was lost: CommitFailedException) ended the loop's thread for
     * good, and the instance took no more requests until it was restarted. The loop goes on now, and commits next time.
     */
    @Test
    void aCommitThatFailsOnce_doesNotEndTheLoop() {
        String a = sessionOn(0, 1);
        var requests = new FailingCommitConsumer();
        var outcomes = new MemoryOutcomeLog(1);
        start(requests, outcomes, List.of(P0));
        requests.add(P0, a, request(a, "c1"));

        await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(10)).until(() -> requests.commitFailures.get() <= 0);
        requests.add(P0, a, request(a, "c2"));

        await().dontCatchUncaughtExceptions().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(thread.isAlive()).as("the loop thread, after one failed commit").isTrue());
        await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(tickets.external.keySet())
                .as("the loop goes on after a failed commit: the next request runs").contains(a + "/3/c2"));
    }

    // ---------------------------------------------------------------------------------------------

    private void awaitEntered() {
        try {
            assertThat(entered.await(10, TimeUnit.SECONDS)).as("the slow call started").isTrue();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private void start(MockConsumer<String, ToolRequest> requests, MemoryOutcomeLog outcomes, List<TopicPartition> assigned) {
        var runner = new CommandRunner(RunnerConfig.defaults().withSandboxUser(SandboxUser.current().isRoot()
                ? SandboxUser.NOBODY : SandboxUser.current()), Isolation.Unavailable.because("not needed by these tests"));
        var sandbox = new Sandbox(new WorkspaceRoot(dir.resolve("ws"), SandboxUser.current()), runner,
                new MapSecretProvider(Map.of()), new BlobOffloader(new LocalBlobStore(dir.resolve("blobs"))));
        var registry = tickets.registry();
        var producer = new LedgerProducer(outcomes);
        fenced = new FencedWritesDouble(producer);
        var writer = new AckedWriter(producer, fenced, LAYOUT);
        ledger = new Ledger(outcomes, writer, new Ledger.Settings(20_000, Duration.ofMinutes(1)), CLOCK);
        var handler = new CallHandler(ledger, writer, new Authority(registry, GatingPolicy.of("run_command", Map.of(), registry.names())),
                sandbox, new InFlight(), catchUp, CrashPoints.none(), "executor-1", CLOCK);
        loop = new ExecutorLoop(requests, ledger, handler, workers, LAYOUT);
        requests.schedulePollTask(() -> requests.rebalance(assigned));
        thread = new Thread(loop, "executor-loop");
        thread.start();
    }

    private static long committed(Consumer<String, ToolRequest> requests, TopicPartition partition) {
        OffsetAndMetadata committed = requests.committed(Set.of(partition)).get(partition);
        return committed == null ? -1 : committed.offset();
    }

    /** A session id whose partition among {@code partitions} is {@code partition}. */
    private static String sessionOn(int partition, int partitions) {
        return sessionsOn(partition, partitions, 1).get(0);
    }

    /** {@code count} session ids whose partition among {@code partitions} is {@code partition}. */
    private static List<String> sessionsOn(int partition, int partitions, int count) {
        return IntStream.range(0, 1000).mapToObj(i -> "sess" + i)
                .filter(s -> SessionPartitioner.partition(s, partitions) == partition).limit(count).toList();
    }


    /** Writes land in the ledger's log where Kafka's SessionPartitioner would put them among its partitions. */
    private static final class LedgerProducer extends MockProducer<String, SpecificRecord> {
        private final MemoryOutcomeLog outcomes;

        LedgerProducer(MemoryOutcomeLog outcomes) {
            super(true, null, new StringSerializer(), (Serializer<SpecificRecord>) (topic, value) -> new byte[0]);
            this.outcomes = outcomes;
        }

        @Override
        public synchronized Future<RecordMetadata> send(ProducerRecord<String, SpecificRecord> record, Callback callback) {
            Future<RecordMetadata> sent = super.send(record, callback);
            if (record.value() instanceof ToolOutcome outcome) {
                synchronized (outcomes) {
                    outcomes.append(outcomes.partitionOf(record.key()), record.key(), outcome, record.timestamp());
                }
            }
            return sent;
        }
    }

    /** One partition; its first commit fails as commitSync does when the coordinator does not answer in time. */
    private static final class FailingCommitConsumer extends MockConsumer<String, ToolRequest> {
        final AtomicInteger commitFailures = new AtomicInteger(1);
        private long next;

        FailingCommitConsumer() {
            super("earliest");
            updatePartitions(TOPIC, List.of(new PartitionInfo(TOPIC, 0, null, null, null)));
            updateBeginningOffsets(Map.of(P0, 0L));
        }

        void add(TopicPartition partition, String key, ToolRequest value) {
            long offset;
            synchronized (this) {
                offset = next++;
            }
            var record = new ConsumerRecord<>(partition.topic(), partition.partition(), offset, System.currentTimeMillis(),
                    TimestampType.CREATE_TIME, 0, 0, key, value, new RecordHeaders(), Optional.empty());
            schedulePollTask(() -> addRecord(record));
        }

        @Override
        public synchronized void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
            if (commitFailures.getAndDecrement() > 0) {
                throw new org.apache.kafka.common.errors.TimeoutException(
                        "Timeout of 60000ms expired before successfully committing offsets " + offsets);
            }
            super.commitSync(offsets);
        }
    }
}
