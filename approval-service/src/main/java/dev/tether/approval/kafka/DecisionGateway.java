package dev.tether.approval.kafka;

import dev.tether.approval.config.ApprovalConfig;
import dev.tether.avro.CommandReply;
import dev.tether.avro.SessionCommand;
import dev.tether.core.auth.TetherPrincipal;
import dev.tether.core.event.ProposedEvent;
import dev.tether.kit.kafka.SessionCommands;
import dev.tether.kit.kafka.Topics;
import dev.tether.kit.service.rest.ApiException;
import dev.tether.kit.tracing.KafkaTracing;
import io.opentelemetry.context.Context;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
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
 * Sends an approver's decision to the sequencer, in the approver's own name, and waits for the verdict, so the
 * decision endpoint answers with what became of it (another approver or an expiry may have got there first). Verdicts
 * come back on {@code session-replies}, addressed to this instance; a reader thread hands each to its waiter.
 *
 * <p>If no verdict arrives in time the caller gets 503 with {@code Retry-After}: sending the same decision again is
 * safe, its eventId is derived from it.
 */
@ApplicationScoped
public class DecisionGateway {

    private static final Logger LOG = Logger.getLogger(DecisionGateway.class);

    private final String instanceId = "approval-service-" + UUID.randomUUID();
    private final ConcurrentHashMap<String, CompletableFuture<CommandReply>> waiting = new ConcurrentHashMap<>();
    private final Producer<String, SessionCommand> producer;
    private final KafkaSetup kafka;
    private final KafkaTracing tracing;
    private final Duration timeout;
    private KafkaConsumer<String, CommandReply> replies;
    private Thread reader;
    private final CountDownLatch reading = new CountDownLatch(1);
    private volatile boolean running;

    DecisionGateway(Producer<String, SessionCommand> producer, KafkaSetup kafka, KafkaTracing tracing, ApprovalConfig config) {
        this.producer = producer;
        this.kafka = kafka;
        this.tracing = tracing;
        this.timeout = config.replyTimeout();
    }

    /**
     * Starts reading verdicts from the end of the reply topic. The topic may not exist yet (every service creates the
     * topics it misses as it starts, all at once under {@code bin/run}): the reader waits for it, and decisions
     * answer 503 until it reads.
     */
    void start(@Observes StartupEvent event) {
        var props = new HashMap<String, Object>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, instanceId + "-replies");
        replies = new KafkaConsumer<>(props, new StringDeserializer(), kafka.replySerde().deserializer());
        running = true;
        reader = new Thread(this::readReplies, "approval-replies-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /** Assigns every partition of the reply topic at its end, once the topic exists; false if stopped meanwhile. */
    private boolean assignAtEnd() throws InterruptedException {
        String topic = kafka.layout().name(Topics.SESSION_REPLIES);
        while (running) {
            List<TopicPartition> partitions = replies.partitionsFor(topic, Duration.ofSeconds(10)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            if (!partitions.isEmpty()) {
                replies.assign(partitions);
                replies.seekToEnd(partitions);
                partitions.forEach(replies::position); // resolve the end offsets now, before a decision is sent
                reading.countDown();
                return true;
            }
            LOG.infof("waiting for the topic %s", topic);
            Thread.sleep(500);
        }
        return false;
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

    /** Appends {@code decision} to the session in {@code approver}'s name and returns the sequencer's verdict. */
    public CommandReply send(String sessionId, String tenantId, TetherPrincipal approver, ProposedEvent decision) {
        try {
            if (!reading.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw ApiException.unavailable("the service is still starting: it does not read the sequencer's verdicts yet", 2);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted", 1);
        }
        String commandId = UUID.randomUUID().toString();
        SessionCommand command = SessionCommands.append(commandId, sessionId, tenantId, approver, List.of(decision), Instant.now());
        command.setReplyTo(instanceId);
        var future = new CompletableFuture<CommandReply>();
        waiting.put(commandId, future);
        try {
            var headers = new RecordHeaders();
            tracing.inject(Context.current(), headers);
            producer.send(new ProducerRecord<>(kafka.layout().name(Topics.SESSION_COMMANDS), null, sessionId, command, headers))
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw ApiException.unavailable("the sequencer did not answer within " + timeout.toSeconds()
                    + " s; sending the same decision again is safe", 1);
        } catch (ExecutionException e) {
            LOG.warnf("sending decision %s failed: %s", commandId, e.getCause().toString());
            throw ApiException.unavailable("Kafka is not reachable; sending the same decision again is safe", 2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted", 1);
        } finally {
            waiting.remove(commandId);
        }
    }

    private void readReplies() {
        try {
            if (!assignAtEnd()) {
                return;
            }
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
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            replies.close(Duration.ofSeconds(5));
        }
    }
}
