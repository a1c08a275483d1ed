package dev.tether.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.avro.AppendedEvent;
import dev.tether.avro.CommandReply;
import dev.tether.avro.Rejection;
import dev.tether.avro.SessionCommand;
import dev.tether.core.auth.Role;
import dev.tether.core.auth.TetherPrincipal;
import dev.tether.kit.tracing.KafkaTracing;
import dev.tether.testing.PlainAvroSerde;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The request/reply channel against Kafka's own mock clients: when it becomes ready, what it writes, which verdict it
 * hands back, and the no-verdict answers (still starting, not written, no answer in time).
 */
class CommandChannelTest {

    private static final TopicLayout LAYOUT = TopicLayout.local();
    private static final String REPLIES = LAYOUT.name(Topics.SESSION_REPLIES);
    private static final TopicPartition P0 = new TopicPartition(REPLIES, 0);
    private static final TopicPartition P1 = new TopicPartition(REPLIES, 1);
    private static final TetherPrincipal APPROVER = new TetherPrincipal("ann", "acme", Set.of(Role.APPROVER));
    private static final String ADVICE = "retrying with the same eventIds is safe";

    private static final PlainAvroSerde<SessionCommand> COMMANDS = new PlainAvroSerde<>(SessionCommand.getClassSchema());

    private final MockProducer<String, byte[]> producer = new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());
    private final BlockingMockConsumer replies = new BlockingMockConsumer();
    private CommandChannel channel;

    @AfterEach
    void closeChannel() {
        if (channel != null) {
            channel.close();
        }
    }

    @Test
    void isNotReady_untilTheReplyTopicExists_thenReadsEveryPartitionFromItsEnd() {
        channel = open(Duration.ofSeconds(5), noTracing());

        await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(2)).until(() -> !channel.ready());
        assertThat(channel.state()).isEqualTo(CommandChannel.State.WAITING_FOR_TOPIC);

        createReplyTopic(5, 3);

        await().atMost(Duration.ofSeconds(5)).until(channel::ready);
        assertThat(channel.state()).isEqualTo(CommandChannel.State.READING);
        assertThat(replies.assignment()).containsExactlyInAnyOrder(P0, P1);
        assertThat(replies.position(P0)).isEqualTo(5);
        assertThat(replies.position(P1)).isEqualTo(3);
    }

    @Test
    void send_writesTheCommandAddressedToTheChannel_keyedBySession_withTheTraceContext_andReturnsItsVerdict() {
        var otel = OpenTelemetry.propagating(ContextPropagators.create(W3CTraceContextPropagator.getInstance()));
        channel = open(Duration.ofSeconds(5), new KafkaTracing(otel, "test"));
        createReplyTopic(0, 0);
        await().atMost(Duration.ofSeconds(5)).until(channel::ready);
        SessionCommand command = command("s-1");
        var span = SpanContext.create("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", TraceFlags.getSampled(), TraceState.getDefault());

        CompletableFuture<CommandVerdict> verdict;
        try (Scope ignored = Span.wrap(span).makeCurrent()) {
            verdict = CompletableFuture.supplyAsync(io.opentelemetry.context.Context.current().wrapSupplier(() -> channel.send(command)));
        }
        ProducerRecord<String, byte[]> written = awaitWritten(1);
        reply(P1, 0, "another-instance", rejected(command.getCommandId()));
        reply(P0, 0, channel.replyTo(), accepted(command.getCommandId(), 7));

        assertThat(written.topic()).isEqualTo(LAYOUT.name(Topics.SESSION_COMMANDS));
        assertThat(written.key()).isEqualTo("s-1");
        assertThat(decoded(written).getReplyTo()).isEqualTo(channel.replyTo());
        assertThat(decoded(written).getCommandId()).isEqualTo(command.getCommandId());
        assertThat(new String(written.headers().lastHeader("traceparent").value(), StandardCharsets.UTF_8))
                .contains("0af7651916cd43dd8448eb211c80319c");
        assertThat(verdict.join()).isEqualTo(CommandVerdict.accepted(
                List.of(new CommandVerdict.Appended("e-1", 7, false, "approval_granted")), 7, 2));
    }

    @Test
    void aCommandSentAgainWhileItsFirstSendWaits_answersBothSends_withItsVerdict() {
        channel = readyChannel(Duration.ofSeconds(5));
        SessionCommand command = command("s-1"); // a claim re-sent with its requestId: the same command id

        var first = CompletableFuture.supplyAsync(() -> channel.send(command));
        awaitWritten(1);
        var again = CompletableFuture.supplyAsync(() -> channel.send(command));
        awaitWritten(2);
        reply(P0, 0, channel.replyTo(), accepted(command.getCommandId(), 7));

        assertThat(first.join().lastSeq()).isEqualTo(7);
        assertThat(again.join().lastSeq()).isEqualTo(7);
    }

    @Test
    void aCommandSentAgainAfterItsFirstSendTimedOut_getsTheVerdict_afterTheFirstSendGaveUp() throws Exception {
        channel = readyChannel(Duration.ofMillis(1500));
        SessionCommand command = command("s-1");

        var first = CompletableFuture.supplyAsync(() -> channel.send(command));
        awaitWritten(1);
        Thread.sleep(500);
        var again = CompletableFuture.supplyAsync(() -> channel.send(command));
        awaitWritten(2);
        assertThatThrownBy(first::join).hasCauseInstanceOf(NoVerdictException.class); // its caller gave up; the retry waits on
        reply(P0, 0, channel.replyTo(), accepted(command.getCommandId(), 7));

        assertThat(again.join().lastSeq()).isEqualTo(7);
    }

    @Test
    void send_beforeTheChannelReads_answersNoVerdict_stillStarting_afterTheTimeout() {
        channel = open(Duration.ofMillis(300), noTracing());

        assertThatThrownBy(() -> channel.send(command("s-1"))).isInstanceOfSatisfying(NoVerdictException.class, e -> {
            assertThat(e.getMessage()).isEqualTo("the service is still starting: it does not read the sequencer's verdicts yet");
            assertThat(e.retryAfterSeconds()).isEqualTo(2);
        });
        assertThat(producer.history()).isEmpty();
    }

    @Test
    void send_withoutAVerdictInTime_answersNoVerdict_sayingRetryingIsSafe() {
        channel = readyChannel(Duration.ofSeconds(1));

        assertThatThrownBy(() -> channel.send(command("s-1"))).isInstanceOfSatisfying(NoVerdictException.class, e -> {
            assertThat(e.getMessage()).isEqualTo("the sequencer did not answer within 1 s; " + ADVICE);
            assertThat(e.retryAfterSeconds()).isEqualTo(1);
        });
        assertThat(producer.history()).hasSize(1);
    }

    @Test
    void send_whenTheBrokerRefusesTheCommand_answersNoVerdict_kafkaNotReachable() {
        var refusing = new MockProducer<>(false, null, new StringSerializer(), new ByteArraySerializer());
        channel = CommandChannel.open(refusing, COMMANDS.serializer(), replies, LAYOUT, noTracing(),
                new CommandChannel.Settings("test-" + UUID.randomUUID(), Duration.ofSeconds(5), ADVICE));
        createReplyTopic(0, 0);
        await().atMost(Duration.ofSeconds(5)).until(channel::ready);

        var verdict = CompletableFuture.supplyAsync(() -> channel.send(command("s-1")));
        await().atMost(Duration.ofSeconds(5)).until(() -> refusing.history().size() == 1);
        refusing.errorNext(new KafkaException("broker down"));

        assertThatThrownBy(verdict::join).isInstanceOf(CompletionException.class).cause()
                .isInstanceOfSatisfying(NoVerdictException.class, e -> {
                    assertThat(e.getMessage()).isEqualTo("Kafka is not reachable; " + ADVICE);
                    assertThat(e.retryAfterSeconds()).isEqualTo(2);
                });
    }

    @Test
    void encode_addressesTheCommandToTheChannel_andSendWritesExactlyThoseBytes() {
        channel = readyChannel(Duration.ofSeconds(5));
        SessionCommand command = command("s-1");

        CommandChannel.Encoded encoded = channel.encode(command);
        var verdict = CompletableFuture.supplyAsync(() -> channel.send(encoded));
        ProducerRecord<String, byte[]> written = awaitWritten(1);
        reply(P0, 0, channel.replyTo(), accepted(command.getCommandId(), 3));

        assertThat(encoded.commandId()).isEqualTo(command.getCommandId());
        assertThat(encoded.sessionId()).isEqualTo("s-1");
        assertThat(encoded.size()).isEqualTo(encoded.bytes().length).isPositive();
        assertThat(written.value()).isSameAs(encoded.bytes());
        assertThat(decoded(written).getReplyTo()).isEqualTo(channel.replyTo());
        assertThat(verdict.join()).isInstanceOf(CommandVerdict.Accepted.class);
        assertThat(producer.history()).hasSize(1);
    }

    @Test
    void encode_whenTheRegistryDoesNotAnswer_answersNoVerdict_andWritesNothing() {
        Serializer<SessionCommand> unreachable = (topic, command) -> {
            throw new SerializationException("lookup failed",
                    new RegistryUnavailableException("http://127.0.0.1:1", "connection refused", null));
        };
        channel = CommandChannel.open(producer, unreachable, replies, LAYOUT, noTracing(),
                new CommandChannel.Settings("test-" + UUID.randomUUID(), Duration.ofSeconds(5), ADVICE));
        createReplyTopic(0, 0);
        await().atMost(Duration.ofSeconds(5)).until(channel::ready);

        assertThatThrownBy(() -> channel.send(command("s-1"))).isInstanceOfSatisfying(NoVerdictException.class, e -> {
            assertThat(e.getMessage()).isEqualTo("the schema registry does not answer; " + ADVICE);
            assertThat(e.retryAfterSeconds()).isEqualTo(5);
        });
        assertThat(producer.history()).isEmpty();
    }

    @Test
    void anUnreadableReply_isSkipped_andTheNextOneStillArrives() {
        channel = readyChannel(Duration.ofSeconds(5));
        SessionCommand command = command("s-1");

        var verdict = CompletableFuture.supplyAsync(() -> channel.send(command));
        awaitWritten(1);
        replies.setPollException(new RecordDeserializationException(RecordDeserializationException.DeserializationExceptionOrigin.VALUE,
                P0, 0, 0, TimestampType.CREATE_TIME, null, null, null, "not Avro", null));
        reply(P0, 1, channel.replyTo(), accepted(command.getCommandId(), 3));

        assertThat(verdict.join()).isInstanceOf(CommandVerdict.Accepted.class);
        assertThat(channel.ready()).isTrue();
    }

    @Test
    void close_stopsTheReaderWhileItWaitsForTheTopic_andClosesBothClients() {
        channel = open(Duration.ofSeconds(5), noTracing());
        await().atMost(Duration.ofSeconds(10)).until(() -> replies.partitionsAsked() > 0);

        long start = System.nanoTime();
        channel.close();

        // it wakes the reader rather than waiting out its 500 ms metadata pause or the 5 s reply timeout
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(channel.state()).isEqualTo(CommandChannel.State.STOPPED);
        assertThat(replies.closed()).isTrue();
        assertThat(producer.closed()).isTrue();
        channel = null;
    }

    @Test
    void theVerdictOfAnAcceptedReply_listsItsEvents_andAResumedClaimItsReason_andTheSessionsStart() {
        Instant started = Instant.parse("2026-12-06T00:30:00.123Z");
        CommandReply claim = CommandReply.newBuilder(accepted("c-1", 4)).setAppended(List.of()).setEpoch(3).setResumeReason("CRASH")
                .setSessionStartedAt(started).setHarnessVersion("v1").setModelId("model-x").build();

        assertThat(CommandChannel.verdictOf(accepted("c-1", 4))).isEqualTo(new CommandVerdict.Accepted(
                List.of(new CommandVerdict.Appended("e-1", 4, false, "approval_granted")), 4, 2, Optional.empty(), Optional.empty(),
                Optional.empty()));
        assertThat(CommandChannel.verdictOf(claim)).isEqualTo(new CommandVerdict.Accepted(List.of(), 4, 3, Optional.of("CRASH"),
                Optional.of(started), Optional.of(new CommandVerdict.Pin("v1", "model-x"))));
    }

    @Test
    void theVerdictOfARejectedReply_carriesItsCodeMessageAndField() {
        CommandReply illegal = CommandReply.newBuilder(rejected("c-1"))
                .setRejection(new Rejection("illegal_event", "no such call", "events[0].callId")).build();

        assertThat(CommandChannel.verdictOf(rejected("c-1")))
                .isEqualTo(new CommandVerdict.Rejected("seq_conflict", "expected seq 3, the session is at 5", Optional.empty(), 5, 1));
        assertThat(CommandChannel.verdictOf(illegal))
                .isEqualTo(new CommandVerdict.Rejected("illegal_event", "no such call", Optional.of("events[0].callId"), 5, 1));
    }

    @Test
    void aRejectedReplyWithoutItsReason_readsAsRefused() {
        CommandReply bare = CommandReply.newBuilder(rejected("c-1")).setRejection(null).build();

        assertThat(CommandChannel.verdictOf(bare)).isEqualTo(new CommandVerdict.Rejected("refused", "refused", Optional.empty(), 5, 1));
    }

    // ---------------------------------------------------------------------------------------------

    private CommandChannel open(Duration timeout, KafkaTracing tracing) {
        return CommandChannel.open(producer, COMMANDS.serializer(), replies, LAYOUT, tracing,
                new CommandChannel.Settings("test-" + UUID.randomUUID(), timeout, ADVICE));
    }

    private CommandChannel readyChannel(Duration timeout) {
        CommandChannel opened = open(timeout, noTracing());
        createReplyTopic(0, 0);
        await().atMost(Duration.ofSeconds(5)).until(opened::ready);
        return opened;
    }

    private static KafkaTracing noTracing() {
        return new KafkaTracing(OpenTelemetry.noop(), "test");
    }

    private void createReplyTopic(long end0, long end1) {
        replies.updateEndOffsets(Map.of(P0, end0, P1, end1));
        Node node = new Node(0, "localhost", 9092);
        replies.updatePartitions(REPLIES, List.of(new PartitionInfo(REPLIES, 0, node, new Node[] {node}, new Node[] {node}),
                new PartitionInfo(REPLIES, 1, node, new Node[] {node}, new Node[] {node})));
    }

    private ProducerRecord<String, byte[]> awaitWritten(int count) {
        await().atMost(Duration.ofSeconds(5)).until(() -> producer.history().size() >= count);
        return producer.history().get(count - 1);
    }

    private static SessionCommand decoded(ProducerRecord<String, byte[]> written) {
        return COMMANDS.deserializer().deserialize(written.topic(), written.value());
    }

    private void reply(TopicPartition partition, long offset, String replyTo, CommandReply reply) {
        replies.addRecord(new ConsumerRecord<>(partition.topic(), partition.partition(), offset, replyTo, reply));
    }

    private static SessionCommand command(String sessionId) {
        return SessionCommands.append(UUID.randomUUID().toString(), sessionId, "acme", APPROVER, List.of(), Instant.EPOCH);
    }

    private static CommandReply accepted(String commandId, long seq) {
        return CommandReply.newBuilder().setCommandId(commandId).setSessionId("s-1").setReplyTo("test").setAccepted(true)
                .setAppended(List.of(new AppendedEvent("e-1", seq, false, "approval_granted"))).setLastSeq(seq).setEpoch(2)
                .setRejection(null).setResumeReason(null).build();
    }

    private static CommandReply rejected(String commandId) {
        return CommandReply.newBuilder().setCommandId(commandId).setSessionId("s-1").setReplyTo("test").setAccepted(false)
                .setAppended(List.of()).setLastSeq(5).setEpoch(1)
                .setRejection(new Rejection("seq_conflict", "expected seq 3, the session is at 5", null)).setResumeReason(null).build();
    }

    /**
     * Kafka's mock consumer, but whose poll blocks, as the real one does, until a record arrives, the timeout passes
     * or it is woken, so the reader does not spin. Counts the metadata lookups.
     */
    private static final class BlockingMockConsumer extends MockConsumer<String, CommandReply> {
        private int partitionsAsked;

        BlockingMockConsumer() {
            super("latest");
        }

        @Override
        public synchronized ConsumerRecords<String, CommandReply> poll(Duration timeout) {
            ConsumerRecords<String, CommandReply> records = super.poll(timeout);
            if (records.isEmpty()) {
                try {
                    TimeUnit.MILLISECONDS.timedWait(this, timeout.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return records;
        }

        @Override
        public synchronized List<PartitionInfo> partitionsFor(String topic, Duration timeout) {
            partitionsAsked++;
            return super.partitionsFor(topic, timeout);
        }

        synchronized int partitionsAsked() {
            return partitionsAsked;
        }

        @Override
        public synchronized void addRecord(ConsumerRecord<String, CommandReply> record) {
            super.addRecord(record);
            notifyAll();
        }

        @Override
        public synchronized void setPollException(KafkaException exception) {
            super.setPollException(exception);
            notifyAll();
        }

        @Override
        public synchronized void wakeup() {
            super.wakeup();
            notifyAll();
        }
    }
}
