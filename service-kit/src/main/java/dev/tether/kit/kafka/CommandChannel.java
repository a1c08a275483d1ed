package dev.tether.kit.kafka;

import dev.tether.avro.CommandReply;
import dev.tether.avro.Rejection;
import dev.tether.avro.SessionCommand;
import dev.tether.kit.tracing.KafkaTracing;
import io.opentelemetry.context.Context;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Request/reply with the sequencer: writes a {@code SessionCommand} to {@code session-commands} and waits for its
 * verdict on {@code session-replies}, so a REST call answers with what became of its own command. Verdicts come back
 * keyed by the {@link Settings#replyTo} of the channel that sent the command; one reader thread reads every partition
 * of the reply topic and hands each verdict to the request waiting for it.
 *
 * <p>Lifecycle: {@link #open} starts the reader. The reply topic may not exist yet (every service creates the topics it
 * misses as it starts, all at once under {@code bin/run}): the reader waits for it, assigns all its partitions at their
 * end and resolves those positions; only then is the channel {@linkplain #ready() ready}, and every verdict written
 * from then on reaches it. A {@link #send} before that waits for it, up to the timeout. {@link #close} stops the
 * reader and closes both clients, which the channel owns from {@code open} on.
 *
 * <p>Thread-safe: any number of request threads may {@code send} at once.
 */
public final class CommandChannel implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CommandChannel.class);
    private static final Duration METADATA_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration TOPIC_RETRY = Duration.ofMillis(500);
    private static final Duration POLL = Duration.ofMillis(500);
    /** How long the reader waits before reading a reply again whose schema the registry did not give. */
    private static final Duration REGISTRY_BACKOFF = Duration.ofSeconds(1);
    /** Retry-After of a command that could not be written because the registry did not answer. */
    private static final int REGISTRY_RETRY_AFTER_SECONDS = 5;

    /** Where the reader is. */
    public enum State {
        /** The reply topic does not exist yet, or its partitions' ends are not resolved yet: not ready. */
        WAITING_FOR_TOPIC,
        /** Assigned to every partition of the reply topic, from the end it had then: ready. */
        READING,
        /** Closed, or stopped by an error it cannot read past: not ready. */
        STOPPED
    }

    /**
     * @param replyTo     this channel's address on the reply topic (its key); unique per instance
     * @param timeout     how long a send waits for the channel to read, for the broker's acknowledgement, and for
     *                    the verdict, each
     * @param retryAdvice how a caller without a verdict may retry, e.g. "retrying with the same eventIds is safe"
     */
    public record Settings(String replyTo, Duration timeout, String retryAdvice) {}

    private final Producer<String, byte[]> producer;
    private final Serializer<SessionCommand> serializer;
    private final Consumer<String, CommandReply> replies;
    private final String commandsTopic;
    private final String repliesTopic;
    private final KafkaTracing tracing;
    private final Settings settings;
    /**
     * The sends waiting for a verdict, by command id: one command may be sent again while its first send waits (a claim
     * re-sent with its requestId), and each send is answered by its verdict, whichever of them gives up first.
     */
    /** The sends waiting for a verdict, by commandId; each list immutable, replaced as a whole (atomically, per id). */
    private final ConcurrentHashMap<String, List<CompletableFuture<CommandVerdict>>> waiting = new ConcurrentHashMap<>();
    private final CountDownLatch reading = new CountDownLatch(1);
    private final CountDownLatch closing = new CountDownLatch(1);
    private final Thread reader;
    private volatile State state = State.WAITING_FOR_TOPIC;

    private CommandChannel(Producer<String, byte[]> producer, Serializer<SessionCommand> serializer, Consumer<String, CommandReply> replies,
                           TopicLayout layout, KafkaTracing tracing, Settings settings) {
        this.producer = producer;
        this.serializer = serializer;
        this.replies = replies;
        this.commandsTopic = layout.name(Topics.SESSION_COMMANDS);
        this.repliesTopic = layout.name(Topics.SESSION_REPLIES);
        this.tracing = tracing;
        this.settings = settings;
        this.reader = new Thread(this::read, "command-replies-reader");
        this.reader.setDaemon(true);
    }

    /**
     * A channel writing the commands {@code serializer} encodes with {@code producer} and reading verdicts with
     * {@code replies} (a consumer with no group and no subscription, see {@link #consumerConfig}); all three are the
     * channel's from now on. Starts the reader.
     */
    public static CommandChannel open(Producer<String, byte[]> producer, Serializer<SessionCommand> serializer,
                                      Consumer<String, CommandReply> replies, TopicLayout layout, KafkaTracing tracing, Settings settings) {
        var channel = new CommandChannel(producer, serializer, replies, layout, tracing, settings);
        channel.reader.start();
        return channel;
    }

    /**
     * The settings of the verdict reader: committed records only (the sequencer writes verdicts in its transactions),
     * no group, no committed offsets, and asking for the reply topic's metadata never creates it (on a broker that
     * allows that, it would get the broker's default partitions instead of the layout's).
     */
    public static Map<String, Object> consumerConfig(String bootstrapServers, String clientId) {
        return Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.CLIENT_ID_CONFIG, clientId,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    }

    /** This channel's address on the reply topic; a command it sends carries it as its {@code replyTo}. */
    public String replyTo() {
        return settings.replyTo();
    }

    /** Whether verdicts reach this channel: the reply topic exists and the reader reads all of it from its end. */
    public boolean ready() {
        return state == State.READING;
    }

    public State state() {
        return state;
    }

    /**
     * A command addressed to this channel and encoded as it will be written: {@link Encoded#size()} is the size of the
     * record's value in {@code session-commands}. Encoding once lets a caller check a size limit without encoding twice.
     *
     * @throws NoVerdictException when the registry does not give the command's schema (nothing is written)
     */
    public Encoded encode(SessionCommand command) {
        command.setReplyTo(settings.replyTo());
        try {
            return new Encoded(command.getCommandId(), command.getSessionId(), serializer.serialize(commandsTopic, command));
        } catch (RuntimeException e) {
            // the command's schema could not be looked up (the serializer's failure, perhaps wrapped)
            var unavailable = RegistryUnavailableException.in(e).orElseThrow(() -> e);
            LOG.warn("command {} not sent: {}", command.getCommandId(), unavailable.getMessage());
            throw new NoVerdictException("the schema registry does not answer; " + settings.retryAdvice(), REGISTRY_RETRY_AFTER_SECONDS);
        }
    }

    /**
     * Writes {@code command}, addressed to this channel (its {@code replyTo} is set to {@link #replyTo()}), keyed by
     * its session, and returns the sequencer's verdict.
     *
     * @throws NoVerdictException when the command's schema cannot be looked up, the channel does not read verdicts
     *                            within the timeout, the command could not be written, or no verdict came within the
     *                            timeout
     */
    public CommandVerdict send(SessionCommand command) {
        return send(encode(command));
    }

    /**
     * Writes a command {@link #encode}d by this channel, keyed by its session, and returns the sequencer's verdict.
     *
     * @throws NoVerdictException as {@link #send(SessionCommand)}
     */
    public CommandVerdict send(Encoded command) {
        awaitReading();
        String commandId = command.commandId();
        long timeoutMillis = settings.timeout().toMillis();
        var verdict = new CompletableFuture<CommandVerdict>();
        // nearly always the only waiter for its id; a re-send of the same command while the first waits joins it
        waiting.merge(commandId, List.of(verdict), CommandChannel::joined);
        try {
            var headers = new RecordHeaders();
            tracing.inject(Context.current(), headers);
            producer.send(new ProducerRecord<>(commandsTopic, null, command.sessionId(), command.bytes(), headers))
                    .get(timeoutMillis, TimeUnit.MILLISECONDS);
            return verdict.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new NoVerdictException("the sequencer did not answer within " + settings.timeout().toSeconds() + " s; "
                    + settings.retryAdvice(), 1);
        } catch (ExecutionException e) {
            LOG.warn("sending command {} failed: {}", commandId, e.getCause().toString());
            throw new NoVerdictException("Kafka is not reachable; " + settings.retryAdvice(), 2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new NoVerdictException("interrupted", 1);
        } finally {
            waiting.computeIfPresent(commandId, (id, sends) -> {
                var others = sends.stream().filter(send -> send != verdict).toList();
                return others.isEmpty() ? null : others;
            });
        }
    }

    private static <T> List<T> joined(List<T> a, List<T> b) {
        var all = new ArrayList<T>(a.size() + b.size());
        all.addAll(a);
        all.addAll(b);
        return List.copyOf(all);
    }

    /** A command as {@link #encode} wrote it: its id, its session (the record's key) and the record's value. */
    public record Encoded(String commandId, String sessionId, byte[] bytes) {
        /** The size of the record's value, in bytes. */
        public int size() {
            return bytes.length;
        }
    }

    /** Stops the reader (at once, wherever it waits) and closes the consumer, the producer and the serializer. Idempotent. */
    @Override
    public synchronized void close() {
        if (closing.getCount() == 0) {
            return;
        }
        closing.countDown();
        replies.wakeup();
        try {
            reader.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close();
        serializer.close();
    }

    private void awaitReading() {
        try {
            if (!reading.await(settings.timeout().toMillis(), TimeUnit.MILLISECONDS)) {
                throw new NoVerdictException("the service is still starting: it does not read the sequencer's verdicts yet", 2);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new NoVerdictException("interrupted", 1);
        }
    }

    private void read() {
        try {
            if (!assignAtEnd()) {
                return;
            }
            state = State.READING;
            reading.countDown();
            while (closing.getCount() > 0) {
                try {
                    replies.poll(POLL).forEach(this::deliver);
                } catch (RecordDeserializationException e) {
                    if (RegistryUnavailableException.in(e).isPresent()) {
                        // a reply whose schema the registry did not give: read it again, not skip it
                        LOG.warn("a reply at {} offset {} waits for the registry: {}", e.topicPartition(), e.offset(), e.getCause().getMessage());
                        closing.await(REGISTRY_BACKOFF.toMillis(), TimeUnit.MILLISECONDS);
                    } else {
                        LOG.warn("skipping an unreadable reply at {} offset {}", e.topicPartition(), e.offset());
                        replies.seek(e.topicPartition(), e.offset() + 1);
                    }
                }
            }
        } catch (WakeupException e) {
            // closing
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (KafkaException e) {
            LOG.error("the reader of {} stopped; commands get no verdict until a restart", repliesTopic, e);
        } finally {
            state = State.STOPPED;
            replies.close(Duration.ofSeconds(5));
        }
    }

    /**
     * Assigns every partition of the reply topic at its end once the topic exists, and resolves those positions now,
     * so a verdict written after this returns is read. Kafka has no notice of a topic's creation: the metadata is
     * asked again after a pause, which {@link #close} cuts short. False if closed meanwhile.
     */
    private boolean assignAtEnd() throws InterruptedException {
        while (closing.getCount() > 0) {
            try {
                List<PartitionInfo> found = replies.partitionsFor(repliesTopic, METADATA_TIMEOUT);
                if (found != null && !found.isEmpty()) {
                    List<TopicPartition> partitions = found.stream().map(p -> new TopicPartition(repliesTopic, p.partition())).toList();
                    replies.assign(partitions);
                    replies.seekToEnd(partitions);
                    partitions.forEach(replies::position);
                    return true;
                }
                LOG.info("waiting for the topic {}", repliesTopic);
            } catch (org.apache.kafka.common.errors.TimeoutException e) {
                LOG.info("waiting for the topic {}: {}", repliesTopic, e.getMessage());
            }
            closing.await(TOPIC_RETRY.toMillis(), TimeUnit.MILLISECONDS);
        }
        return false;
    }

    private void deliver(ConsumerRecord<String, CommandReply> record) {
        if (settings.replyTo().equals(record.key()) && record.value() != null) {
            var sends = waiting.get(record.value().getCommandId());
            if (sends != null) {
                CommandVerdict verdict = verdictOf(record.value());
                sends.forEach(send -> send.complete(verdict));
            }
        }
    }

    /**
     * The verdict a reply carries. A rejection without its reason (the sequencer always writes one) reads as
     * {@code refused}.
     */
    static CommandVerdict verdictOf(CommandReply reply) {
        if (reply.getAccepted()) {
            var accepted = CommandVerdict.accepted(reply.getAppended().stream()
                    .map(a -> new CommandVerdict.Appended(a.getEventId(), a.getSeq(), a.getDuplicate(), a.getType()))
                    .toList(), reply.getLastSeq(), reply.getEpoch());
            accepted = accepted.startedAt(reply.getSessionStartedAt()).pinnedTo(reply.getHarnessVersion(), reply.getModelId());
            return reply.getResumeReason() == null ? accepted : accepted.resumed(reply.getResumeReason());
        }
        Rejection rejection = reply.getRejection();
        if (rejection == null) {
            return CommandVerdict.rejected("refused", "refused", reply.getLastSeq(), reply.getEpoch());
        }
        var rejected = CommandVerdict.rejected(rejection.getCode(), rejection.getMessage(), reply.getLastSeq(), reply.getEpoch());
        return rejection.getField() == null ? rejected : rejected.on(rejection.getField());
    }
}
