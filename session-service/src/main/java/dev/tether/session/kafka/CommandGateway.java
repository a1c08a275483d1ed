package dev.tether.session.kafka;

import dev.tether.avro.CommandReply;
import dev.tether.avro.SessionCommand;
import dev.tether.kit.kafka.Topics;
import dev.tether.kit.service.rest.ApiException;
import dev.tether.kit.tracing.KafkaTracing;
import dev.tether.session.config.SessionServiceConfig;
import dev.tether.session.domain.CommandEnvelope;
import io.opentelemetry.context.Context;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;

/**
 * Sends a command to the sequencer and waits for its verdict, so a REST call answers with the
 * outcome of its own command. Verdicts come back on {@code session-replies}, addressed to this
 * instance's id; a reader thread hands each to the request waiting for it.
 *
 * <p>If no verdict arrives in time the caller gets 503 with {@code Retry-After}: the command may
 * or may not have been applied, and sending it again with the same eventIds is always safe.
 */
@ApplicationScoped
public class CommandGateway {

    private static final Logger LOG = Logger.getLogger(CommandGateway.class);

    private final String instanceId = UUID.randomUUID().toString();
    private final ConcurrentHashMap<String, CompletableFuture<CommandReply>> waiting = new ConcurrentHashMap<>();
    private final Producer<String, SessionCommand> producer;
    private final KafkaSetup kafka;
    private final KafkaTracing tracing;
    private final Duration timeout;
    private KafkaConsumer<String, CommandReply> replies;
    private Thread reader;
    private volatile boolean running;

    CommandGateway(Producer<String, SessionCommand> producer, KafkaSetup kafka, KafkaTracing tracing, SessionServiceConfig config) {
        this.producer = producer;
        this.kafka = kafka;
        this.tracing = tracing;
        this.timeout = config.replyTimeout();
    }

    /** Starts reading verdicts from the end of the reply topic, before any command is sent. */
    void start(@Observes StartupEvent event) {
        var props = new HashMap<String, Object>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "session-service-replies-" + instanceId);
        replies = new KafkaConsumer<>(props, new StringDeserializer(), kafka.replySerde().deserializer());
        String topic = kafka.layout().name(Topics.SESSION_REPLIES);
        List<TopicPartition> partitions = replies.partitionsFor(topic, Duration.ofSeconds(60)).stream()
                .map(p -> new TopicPartition(topic, p.partition())).toList();
        replies.assign(partitions);
        replies.seekToEnd(partitions);
        partitions.forEach(replies::position); // resolve the end offsets now, not at the first poll
        running = true;
        reader = new Thread(this::readReplies, "session-replies-reader");
        reader.setDaemon(true);
        reader.start();
    }

    void stop(@Observes ShutdownEvent event) {
        running = false;
        if (replies != null) {
            replies.wakeup();
        }
        if (reader != null) {
            try {
                reader.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Sends the command and returns the sequencer's verdict; 503 when none arrives in time. */
    public CommandReply send(CommandEnvelope envelope) {
        SessionCommand command = CommandAvro.toAvro(envelope, instanceId);
        var future = new CompletableFuture<CommandReply>();
        waiting.put(envelope.commandId(), future);
        try {
            var headers = new RecordHeaders();
            tracing.inject(Context.current(), headers);
            producer.send(new ProducerRecord<>(kafka.layout().name(Topics.SESSION_COMMANDS), null, envelope.sessionId(), command, headers))
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw ApiException.unavailable("the sequencer did not answer within " + timeout.toSeconds()
                    + " s; retrying with the same eventIds is safe", 1);
        } catch (ExecutionException e) {
            LOG.warnf("sending command %s failed: %s", envelope.commandId(), e.getCause().toString());
            throw ApiException.unavailable("Kafka is not reachable; retrying with the same eventIds is safe", 2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted", 1);
        } finally {
            waiting.remove(envelope.commandId());
        }
    }

    private void readReplies() {
        try {
            while (running) {
                try {
                    for (var record : replies.poll(Duration.ofMillis(500))) {
                        if (instanceId.equals(record.key()) && record.value() != null) {
                            var future = waiting.get(record.value().getCommandId());
                            if (future != null) {
                                future.complete(record.value());
                            }
                        }
                    }
                } catch (RecordDeserializationException e) {
                    LOG.warnf("skipping an unreadable reply at %s offset %d", e.topicPartition(), e.offset());
                    replies.seek(e.topicPartition(), e.offset() + 1);
                }
            }
        } catch (WakeupException e) {
            // shutting down
        } finally {
            replies.close(Duration.ofSeconds(5));
        }
    }
}
