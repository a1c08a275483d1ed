package dev.tether.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.avro.AppendedEvent;
import dev.tether.avro.CommandReply;
import dev.tether.avro.Rejection;
import dev.tether.avro.SessionCommand;
import dev.tether.core.auth.Role;
import dev.tether.core.auth.TetherPrincipal;
import dev.tether.kit.tracing.KafkaTracing;
import dev.tether.testing.TetherStack;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The request/reply channel against the real broker and registry, started before its topics exist (as every service
 * starts under {@code bin/run}, each creating the topics it misses): not ready until {@code session-replies} exists
 * and is read from its end, then a command sent through it gets the verdict addressed to it, not another instance's.
 */
class CommandChannelIT {

    private static final TetherPrincipal APPROVER = new TetherPrincipal("ann", "acme", Set.of(Role.APPROVER));

    private final TetherStack stack = TetherStack.shared();

    @Test
    void isNotReadyUntilTheReplyTopicExists_thenAnswersACommandWithItsOwnVerdict() throws Exception {
        TopicLayout layout = TopicLayout.local().withPrefix("channel-" + UUID.randomUUID() + ".");
        String commands = layout.name(Topics.SESSION_COMMANDS);
        String replies = layout.name(Topics.SESSION_REPLIES);
        Serde<SessionCommand> commandSerde = AvroSerdes.valueSerde(stack.registryUrl());
        Serde<CommandReply> replySerde = AvroSerdes.valueSerde(stack.registryUrl());
        String replyTo = "channel-it-" + UUID.randomUUID();

        try (var channel = CommandChannel.open(
                new KafkaProducer<>(ProducerSettings.reliable(stack.bootstrapServers(), "channel-it").toMap(), new StringSerializer(),
                        new ByteArraySerializer()),
                commandSerde.serializer(),
                new KafkaConsumer<>(CommandChannel.consumerConfig(stack.bootstrapServers(), replyTo + "-replies"), new StringDeserializer(),
                        replySerde.deserializer()),
                layout, new KafkaTracing(OpenTelemetry.noop(), "test"),
                new CommandChannel.Settings(replyTo, Duration.ofSeconds(30), "retrying is safe"))) {

            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> !channel.ready());
            assertThat(channel.state()).isEqualTo(CommandChannel.State.WAITING_FOR_TOPIC);

            try (Admin admin = Admin.create(stack.clientConfig())) {
                new TopicInitializer(admin, Duration.ofSeconds(30)).create(List.of(
                        new NewTopic(commands, layout.partitions(), layout.replicationFactor()),
                        new NewTopic(replies, layout.partitions(), layout.replicationFactor())));
            }
            await().atMost(Duration.ofSeconds(30)).until(channel::ready);

            SessionCommand command = SessionCommands.append(UUID.randomUUID().toString(), "s-1", "acme", APPROVER, List.of(),
                    Instant.now());
            CompletableFuture<CommandVerdict> verdict = CompletableFuture.supplyAsync(() -> channel.send(command));
            SessionCommand written = awaitCommand(commands, commandSerde);
            answer(replies, replySerde, written, "another-instance", false);
            answer(replies, replySerde, written, written.getReplyTo(), true);

            assertThat(written.getCommandId()).isEqualTo(command.getCommandId());
            assertThat(written.getReplyTo()).isEqualTo(replyTo);
            assertThat(verdict.get()).isEqualTo(CommandVerdict.accepted(
                    List.of(new CommandVerdict.Appended("e-1", 1, false, "approval_granted")), 1, 0));

            channel.close();
            assertThat(channel.state()).isEqualTo(CommandChannel.State.STOPPED);
        }
    }

    /** The one command on the commands topic, as the sequencer reads it. */
    private SessionCommand awaitCommand(String topic, Serde<SessionCommand> serde) {
        var config = new HashMap<>(stack.clientConfig());
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (var consumer = new KafkaConsumer<>(config, new StringDeserializer(), serde.deserializer())) {
            var partitions = consumer.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline) {
                for (var record : consumer.poll(Duration.ofMillis(500))) {
                    assertThat(record.key()).isEqualTo("s-1");
                    return record.value();
                }
            }
        }
        throw new AssertionError("no command on " + topic);
    }

    /** A verdict on {@code command} addressed to {@code replyTo}, as the sequencer writes it. */
    private void answer(String topic, Serde<CommandReply> serde, SessionCommand command, String replyTo, boolean accepted) throws Exception {
        var reply = CommandReply.newBuilder().setCommandId(command.getCommandId()).setSessionId(command.getSessionId()).setReplyTo(replyTo)
                .setAccepted(accepted)
                .setAppended(accepted ? List.of(new AppendedEvent("e-1", 1L, false, "approval_granted")) : List.of())
                .setLastSeq(accepted ? 1L : 0L).setEpoch(0L)
                .setRejection(accepted ? null : new Rejection("not_found", "no such session", null))
                .setResumeReason(null).build();
        try (var producer = new KafkaProducer<>(ProducerSettings.reliable(stack.clientConfig()).toMap(), new StringSerializer(),
                serde.serializer())) {
            producer.send(new ProducerRecord<>(topic, replyTo, reply)).get();
        }
    }
}
