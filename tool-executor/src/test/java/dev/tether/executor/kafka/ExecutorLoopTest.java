package dev.tether.executor.kafka;

import static dev.tether.executor.kafka.TicketTool.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.avro.SessionCommand;
import dev.tether.avro.ToolOutcome;
import dev.tether.avro.ToolRequest;
import dev.tether.core.blob.BlobOffloader;
import dev.tether.core.blob.LocalBlobStore;
import dev.tether.core.policy.GatingPolicy;
import dev.tether.executor.domain.Authority;
import dev.tether.executor.domain.CallRules;
import dev.tether.kit.kafka.RegistryUnavailableException;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The executor's loop while the schema registry does not answer, with no broker: {@code tool-requests} is a
 * {@link LogConsumer} (a log that a seek reads again, whose deserializer fails for want of the registry while it is
 * away), {@code tool-outcomes} a {@link MemoryOutcomeLog} that the ledger reads and the writes land in, and every write
 * goes through a producer whose serializer fails while the registry is away for its topic. The loop, the ledger and
 * the call handler are the real ones, and the tool counts its executions. Each path the registry can fail on — reading a
 * request, reading the ledger, writing {@code STARTED}, writing the result after the tool ran — ends the same way once
 * the registry answers: every call run exactly once, one {@code tool_result} per call, every offset committed, none
 * before its call was reported.
 */
class ExecutorLoopTest {

    private static final TopicLayout LAYOUT = TopicLayout.local();
    private static final TopicPartition REQUESTS = new TopicPartition(LAYOUT.name(Topics.TOOL_REQUESTS), 0);
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-29T10:00:00Z"), ZoneOffset.UTC);
    /** Three calls of two sessions: s1's two one after the other, s2's beside them. */
    private static final List<ToolRequest> CALLS = List.of(request("s1", "c1"), request("s2", "c1"), request("s1", "c2"));

    @TempDir
    Path dir;

    private final LogConsumer<String, ToolRequest> requests = new LogConsumer<>(REQUESTS.topic(), 1);
    private final MemoryOutcomeLog outcomes = new MemoryOutcomeLog(1);
    private final RegistryProducer producer = new RegistryProducer(outcomes);
    private final TicketTool tickets = new TicketTool();
    private final ExecutorService workers = Executors.newFixedThreadPool(2);
    private FencedWritesDouble fenced;
    private ExecutorLoop loop;
    private Thread thread;

    @AfterEach
    void stop() throws InterruptedException {
        if (loop != null) {
            loop.stop();
            thread.join(10_000);
        }
        workers.shutdownNow();
    }

    @Test
    void aRequestWhoseSchemaTheRegistryDoesNotGive_isReadAgainOnceItDoes_neverSkipped_andRunOnce() {
        requests.registryAway = true;
        CALLS.forEach(this::send);
        start();

        await().atMost(Duration.ofSeconds(10)).until(() -> requests.registryFailures.get() >= 2);
        assertThat(tickets.executions.get()).as("nothing decoded, nothing run").isZero();
        assertThat(committed()).isNull();
        assertThat(requests.position(REQUESTS)).as("the request the registry did not give is where the loop reads next").isZero();

        requests.registryAway = false;
        assertEveryCallRunOnce_andReportedOnce_andCommitted();
    }

    @Test
    void aRequestThatCanNeverBeDecoded_isSkipped_andTheNextOnesRun() {
        // the contrast: a definite answer of the registry (an unknown schema id) is not waited for
        send(CALLS.get(0));
        requests.appendUndecodable(REQUESTS, "s1");
        send(CALLS.get(1));
        send(CALLS.get(2));
        start();

        await().atMost(Duration.ofSeconds(10)).until(() -> Long.valueOf(4).equals(committedOffset()));
        assertThat(tickets.executions.get()).isEqualTo(3);
        assertThat(results()).hasSize(3);
    }

    @Test
    void aLedgerThatCannotBeReadForWantOfTheRegistry_failsTheBatch_runsAndWritesNothing_andItsCallsRunOnceItAnswers() {
        // what KafkaOutcomeLog throws when a tool-outcomes record's schema cannot be looked up
        outcomes.failure = new OutcomeLog.LedgerUnavailableException("tool-outcomes-0 offset 0 cannot be decoded",
                new RecordDeserializationException(new TopicPartition(LAYOUT.name(Topics.TOOL_OUTCOMES), 0), 0, "Error deserializing",
                        new RegistryUnavailableException(LogConsumer.REGISTRY, "did not answer within 3000 ms", null)));
        CALLS.forEach(this::send);
        start();

        await().atMost(Duration.ofSeconds(10)).until(() -> outcomes.failed.get() >= 2); // the batch came again, and failed again
        assertThat(tickets.executions.get()).isZero();
        assertThat(producer.history()).as("no STARTED, no outcome, no result").isEmpty();
        assertThat(committed()).isNull();

        outcomes.failure = null;
        assertEveryCallRunOnce_andReportedOnce_andCommitted();
    }

    @Test
    void aStartedThatCannotBeWrittenForWantOfTheRegistry_runsNothing_andTheCallsRunOnceItAnswers() {
        producer.registryAwayFor.add(LAYOUT.name(Topics.TOOL_OUTCOMES));
        CALLS.forEach(this::send);
        start();

        await().atMost(Duration.ofSeconds(10)).until(() -> producer.registryFailures.get() >= 4); // two sessions, two batches
        assertThat(tickets.executions.get()).as("no tool runs before its STARTED is written").isZero();
        assertThat(producer.history()).isEmpty();
        assertThat(committed()).isNull();

        producer.registryAwayFor.clear();
        assertEveryCallRunOnce_andReportedOnce_andCommitted();
    }

    @Test
    void aResultThatCannotBeSentForWantOfTheRegistry_afterTheToolRan_isSentOnceItAnswers_andTheToolIsNotRunAgain() {
        producer.registryAwayFor.add(LAYOUT.name(Topics.SESSION_COMMANDS));
        CALLS.forEach(this::send);
        start();

        await().atMost(Duration.ofSeconds(10)).until(() -> producer.registryFailures.get() >= 4); // two sessions, two batches
        assertThat(tickets.executions.get()).as("s1/c1 and s2/c1 ran; s1/c2 waits behind s1/c1's result").isEqualTo(2);
        assertThat(results()).isEmpty();
        assertThat(committed()).as("no offset is committed before its call is reported").isNull();

        producer.registryAwayFor.clear();
        assertEveryCallRunOnce_andReportedOnce_andCommitted();
        assertThat(outcomeStates()).as("each call's STARTED and OK once: the ones that ran were only reported again")
                .containsOnlyKeys(CALLS.stream().map(ToolRequest::getIdempotencyKey).toList())
                .allSatisfy((key, states) -> assertThat(states).containsExactly("STARTED", "OK"));
    }

    /**
     * A call authorized a few minutes ahead of this executor's clock (the sequencer's clock is ahead): its catch-up and
     * its ledger records take its {@code requestedAt} as it is (stamped with it, within what the broker accepts), and it
     * runs once, as do the calls of its partition behind it.
     */
    @Test
    void aCallAuthorizedMinutesAheadOfThisClock_runsOnce_andTheCallsBehindItRun() {
        Instant ahead = CLOCK.instant().plus(Duration.ofMinutes(5));
        send(withRequestedAt(CALLS.get(0), ahead));
        send(CALLS.get(1));
        send(CALLS.get(2));
        start();

        assertEveryCallRunOnce_andReportedOnce_andCommitted();
        assertThat(producer.history().stream().filter(r -> r.value() instanceof ToolOutcome o
                && o.getIdempotencyKey().equals(CALLS.get(0).getIdempotencyKey())).map(ProducerRecord::timestamp))
                .as("its records stamped with its authorization").containsOnly(ahead.toEpochMilli());
    }

    /**
     * A request whose {@code requestedAt} lies further ahead than the broker accepts a timestamp
     * ({@code message.timestamp.after.max.ms}, an hour by default since Kafka 4.0): a bad record, or a sequencer's clock
     * far ahead. The ledger stamps a call's records with its authorization, so its STARTED was refused every time; the
     * batch failed and came again every second, for ever, and every later request of its partition waited behind it.
     * Now nothing is run, recorded or reported for it (it cannot be recorded, so it must not run), and the calls behind
     * it run.
     */
    @Test
    void aCallAuthorizedFurtherAheadThanTheBrokerAcceptsATimestamp_doesNotStopItsPartition_andIsNotRun() {
        ToolRequest bad = withRequestedAt(CALLS.get(0), CLOCK.instant().plus(Duration.ofHours(2)));
        send(bad);
        send(CALLS.get(1));
        send(CALLS.get(2));
        start();

        await().atMost(Duration.ofSeconds(15)).until(() -> Long.valueOf(CALLS.size()).equals(committedOffset()));
        assertThat(tickets.external).as("the calls behind it ran, once each; it did not")
                .containsOnlyKeys(CALLS.get(1).getIdempotencyKey(), CALLS.get(2).getIdempotencyKey());
        assertThat(tickets.executions.get()).isEqualTo(2);
        assertThat(results()).containsExactlyInAnyOrder(CallRules.resultEventId(CALLS.get(1).getIdempotencyKey()),
                CallRules.resultEventId(CALLS.get(2).getIdempotencyKey()));
        assertThat(outcomeStates()).doesNotContainKey(bad.getIdempotencyKey());
    }

    // ---------------------------------------------------------------------------------------------

    private void assertEveryCallRunOnce_andReportedOnce_andCommitted() {
        await().atMost(Duration.ofSeconds(15)).until(() -> Long.valueOf(CALLS.size()).equals(committedOffset()));
        assertThat(tickets.executions.get()).as("every call run exactly once").isEqualTo(CALLS.size());
        assertThat(tickets.external).containsOnlyKeys(CALLS.stream().map(ToolRequest::getIdempotencyKey).toList());
        assertThat(results()).as("one tool_result per call")
                .containsExactlyInAnyOrderElementsOf(CALLS.stream().map(c -> CallRules.resultEventId(c.getIdempotencyKey())).toList());
    }

    private static ToolRequest withRequestedAt(ToolRequest request, Instant requestedAt) {
        return ToolRequest.newBuilder(request).setRequestedAt(requestedAt).build();
    }

    private void start() {
        var runner = new CommandRunner(RunnerConfig.defaults().withSandboxUser(SandboxUser.current().isRoot()
                ? SandboxUser.NOBODY : SandboxUser.current()), Isolation.Unavailable.because("not needed by these tests"));
        var sandbox = new Sandbox(new WorkspaceRoot(dir.resolve("ws"), SandboxUser.current()), runner,
                new MapSecretProvider(Map.of()), new BlobOffloader(new LocalBlobStore(dir.resolve("blobs"))));
        var registry = tickets.registry();
        fenced = new FencedWritesDouble(producer);
        var writer = new AckedWriter(producer, fenced, LAYOUT);
        var ledger = new Ledger(outcomes, writer, new Ledger.Settings(20_000, Duration.ofMinutes(1)), CLOCK);
        var handler = new CallHandler(ledger, writer, new Authority(registry, GatingPolicy.of("run_command", Map.of(), registry.names())),
                sandbox, new InFlight(), (sessionId, requestedAt) -> {}, CrashPoints.none(), "executor-1", CLOCK);
        loop = new ExecutorLoop(requests, ledger, handler, workers, LAYOUT);
        requests.schedulePollTask(() -> requests.rebalance(List.of(REQUESTS)));
        thread = new Thread(loop, "executor-loop");
        thread.start();
    }

    private void send(ToolRequest request) {
        requests.append(REQUESTS, request.getSessionId(), request);
    }

    private OffsetAndMetadata committed() {
        return requests.committed(Set.of(REQUESTS)).get(REQUESTS);
    }

    private Long committedOffset() {
        OffsetAndMetadata committed = committed();
        return committed == null ? null : committed.offset();
    }

    /** The eventIds of the tool_result commands sent. */
    private List<String> results() {
        return producer.history().stream().filter(r -> r.value() instanceof SessionCommand)
                .map(r -> ((SessionCommand) r.value()).getPayload().getAppendEvents().getEvents().get(0).getEventId()).toList();
    }

    /** Idempotency key → the states written to tool-outcomes for it, in order. */
    private Map<String, List<String>> outcomeStates() {
        var states = new LinkedHashMap<String, List<String>>();
        producer.history().stream().filter(r -> r.value() instanceof ToolOutcome).map(r -> (ToolOutcome) r.value())
                .forEach(o -> states.computeIfAbsent(o.getIdempotencyKey(), k -> new ArrayList<>()).add(o.getState().name()));
        return states;
    }


    /**
     * The executor's producer: its writes to {@code tool-outcomes} land in the {@link MemoryOutcomeLog} the ledger reads,
     * and while the registry is away for a topic its serializer fails before anything is sent, as the Avro serializer does
     * when it cannot look the schema up (the exception comes out of {@code send} itself).
     */
    private static final class RegistryProducer extends MockProducer<String, SpecificRecord> {

        /** The broker's {@code message.timestamp.after.max.ms}: its default since Kafka 4.0. Its clock is {@link #CLOCK}. */
        static final Duration AFTER_MAX = Duration.ofHours(1);

        final Set<String> registryAwayFor;
        final AtomicInteger registryFailures;
        private final MemoryOutcomeLog outcomes;

        RegistryProducer(MemoryOutcomeLog outcomes) {
            this(outcomes, new AwaySerializer());
        }

        private RegistryProducer(MemoryOutcomeLog outcomes, AwaySerializer serializer) {
            super(true, null, new StringSerializer(), serializer);
            this.outcomes = outcomes;
            this.registryAwayFor = serializer.awayFor;
            this.registryFailures = serializer.failures;
        }

        @Override
        public synchronized Future<RecordMetadata> send(ProducerRecord<String, SpecificRecord> record, Callback callback) {
            if (record.timestamp() != null && record.timestamp() > CLOCK.millis() + AFTER_MAX.toMillis()) {
                // the broker's answer to a record stamped further ahead of its clock than message.timestamp.after.max.ms
                return CompletableFuture.failedFuture(new InvalidTimestampException("Timestamp " + record.timestamp()
                        + " of message with offset 0 is out of range. The timestamp should be within [" + Long.MIN_VALUE + ", "
                        + (CLOCK.millis() + AFTER_MAX.toMillis()) + "]"));
            }
            Future<RecordMetadata> sent = super.send(record, callback); // throws if the serializer does: nothing sent
            if (record.value() instanceof ToolOutcome outcome) {
                synchronized (outcomes) {
                    outcomes.append(outcomes.partitionOf(record.key()), record.key(), outcome, record.timestamp());
                }
            }
            return sent;
        }
    }

    /** A value serializer that fails for the topics the registry is away for, as Apicurio's does when a lookup fails. */
    private static final class AwaySerializer implements Serializer<SpecificRecord> {

        final Set<String> awayFor = ConcurrentHashMap.newKeySet();
        final AtomicInteger failures = new AtomicInteger();

        @Override
        public byte[] serialize(String topic, SpecificRecord value) {
            if (awayFor.contains(topic)) {
                failures.incrementAndGet();
                throw new SerializationException("Error serializing Avro message",
                        new RegistryUnavailableException(LogConsumer.REGISTRY, "did not answer within 3000 ms", null));
            }
            return new byte[0];
        }
    }
}
