package dev.tether.cli.kafka;

import dev.tether.cli.CliException;
import dev.tether.cli.Durations;
import dev.tether.kit.kafka.AvroSerdes;
import dev.tether.kit.kafka.RegistryUnavailableException;
import dev.tether.kit.kafka.SchemaRegistryInitializer;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Serde;

/**
 * Moves a stopped service past the one record of a Tether topic that it cannot read. Such a record (bytes that are not
 * Avro, a schema id the registry does not have) stops the stream thread that meets it, and every restart meets it
 * again: the services never skip a record by themselves (service-kit's LogAndFail handlers). This is the operator's
 * way on: it checks that the service's consumer group has no member (every instance stopped), that the group's
 * committed offset of the partition is the record's (the service stands exactly there), and that the record really
 * cannot be read, through the registry, as the topic's values are read; only then does it commit the next offset for
 * the group. A record that reads, or that cannot be read only because the registry does not answer, is refused:
 * skipping it would lose it. Thread-safe only in that it keeps no state between calls.
 */
public final class RecordSkip {

    /**
     * The services whose consumer group a skip moves, by name: the three Kafka Streams applications and the executor.
     * Each group's id is the topic prefix and {@code tether-<service>}, as the services name it.
     */
    public static final List<String> SERVICES = List.of("session-service", "projector-service", "approval-service", "tool-executor");

    /**
     * A record skipped.
     *
     * @param group     the consumer group moved past it
     * @param key       its key as text (UTF-8), or null
     * @param bytes     the size of its value, or -1 for none
     * @param timestamp when it was written (the record's timestamp)
     * @param reason    why it cannot be read: the deserializer's failure
     */
    public record Skipped(String group, String topic, int partition, long offset, String key, int bytes, Instant timestamp, String reason) {}

    private final KafkaSettings settings;

    public RecordSkip(KafkaSettings settings) {
        this.settings = settings;
    }

    /**
     * Commits {@code offset + 1} for {@code service}'s group on {@code topic}'s {@code partition}, after the checks above.
     *
     * @param topic one of Tether's topics, without the prefix ({@code session-commands})
     * @throws CliException naming what stopped it: a member in the group, another committed offset, no record at the
     *                      offset, a record that reads, the registry not answering, Kafka not answering
     */
    public Skipped skip(String service, String topic, int partition, long offset) {
        String group = settings.layout().prefix() + "tether-" + service;
        String name = settings.layout().name(topic);
        var tp = new TopicPartition(name, partition);
        try (Admin admin = Admin.create(settings.admin())) {
            requireNoMember(admin, group, service);
            requireCommittedAt(admin, group, tp, offset);
            ConsumerRecord<byte[], byte[]> record = read(tp, offset);
            String reason = unreadable(record);
            admin.alterConsumerGroupOffsets(group, Map.of(tp, new OffsetAndMetadata(offset + 1, "skipped an unreadable record by tether topics skip-record")))
                    .all().get(settings.timeout().toMillis(), TimeUnit.MILLISECONDS);
            return new Skipped(group, name, partition, offset, record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8),
                    record.value() == null ? -1 : record.value().length, Instant.ofEpochMilli(record.timestamp()), reason);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException) { // no broker answered: not a refusal
                throw unanswered(e.getCause());
            }
            throw new CliException("Kafka at " + settings.bootstrapServers() + " refused: " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw unanswered(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException("interrupted", e);
        }
    }

    private void requireNoMember(Admin admin, String group, String service) throws ExecutionException, InterruptedException, TimeoutException {
        ConsumerGroupDescription description = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group)
                .get(settings.timeout().toMillis(), TimeUnit.MILLISECONDS);
        if (!description.members().isEmpty()) {
            throw new CliException("the consumer group " + group + " has " + description.members().size() + " member(s): stop every "
                    + "instance of the " + service + " first (scale it to 0); a running one would go on from its own offset");
        }
    }

    private void requireCommittedAt(Admin admin, String group, TopicPartition tp, long offset)
            throws ExecutionException, InterruptedException, TimeoutException {
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                .get(settings.timeout().toMillis(), TimeUnit.MILLISECONDS);
        OffsetAndMetadata at = committed.get(tp);
        if (at == null) {
            throw new CliException("the consumer group " + group + " has no committed offset on " + tp + " (check the service, the topic, "
                    + "the partition and --topics-prefix)");
        }
        if (at.offset() > offset) {
            throw new CliException("the consumer group " + group + " stands at offset " + at.offset() + " of " + tp + ", past " + offset
                    + ": its service has read that record already; nothing to skip there");
        }
        if (at.offset() < offset) {
            throw new CliException("the consumer group " + group + " stands at offset " + at.offset() + " of " + tp + ", before " + offset
                    + ": the records from " + at.offset() + " on came in the fetch that the unreadable one failed, and moving the group past "
                    + offset + " would skip them too: start the service with TETHER_SKIP_RECORDS=" + tp.topic() + ":" + tp.partition() + ":"
                    + offset + " instead, which passes over that record alone (cli/README.md, \"A record a service cannot read\")");
        }
    }

    /** The record at {@code offset}, read as written (bytes), committed records only. */
    private ConsumerRecord<byte[], byte[]> read(TopicPartition tp, long offset) {
        try (var consumer = new KafkaConsumer<>(settings.consumer("tether-cli-skip-record"), new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(List.of(tp));
            long end = consumer.endOffsets(List.of(tp), settings.timeout()).get(tp);
            if (offset >= end) {
                throw new CliException(tp + " ends at offset " + end + ": there is no record at " + offset);
            }
            consumer.seek(tp, offset);
            long deadline = System.nanoTime() + settings.timeout().toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    if (record.offset() != offset) {
                        throw new CliException("no record at offset " + offset + " of " + tp + " (a transaction's marker or an aborted "
                                + "write; the next record is at " + record.offset() + "): there is nothing to skip there");
                    }
                    return record;
                }
            }
            throw new CliException("Kafka at " + settings.bootstrapServers() + " gave no record at offset " + offset + " of " + tp
                    + " within " + Durations.format(settings.timeout()) + " (see --timeout)");
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            throw unanswered(e);
        }
    }

    /** Why the record's value cannot be read as its topic's values are; refuses one that reads, or that needs the registry back. */
    String unreadable(ConsumerRecord<byte[], byte[]> record) {
        if (record.value() == null) {
            throw new CliException("the record at offset " + record.offset() + " of " + record.topic() + "-" + record.partition()
                    + " has no value (a tombstone), which every service reads: not a record to skip");
        }
        requireTopicSchema(record.topic());
        try (Serde<SpecificRecord> values = AvroSerdes.valueSerde(settings.registry())) {
            SpecificRecord value = values.deserializer().deserialize(record.topic(), record.headers(), record.value());
            throw new CliException("the record at offset " + record.offset() + " of " + record.topic() + "-" + record.partition()
                    + " reads as a " + value.getSchema().getFullName() + ": it is not what stopped the service (its log says what "
                    + "did); refusing to skip a record that can be read");
        } catch (RuntimeException e) {
            if (e instanceof CliException) {
                throw e;
            }
            if (RegistryUnavailableException.in(e).isPresent()) {
                throw new CliException("the registry at " + settings.registryUrl() + " does not answer, so whether the record can be read "
                        + "is not known: bring the registry back (a service waits for it by itself) rather than skip the record", e);
            }
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            return root == e ? String.valueOf(e.getMessage()) : e.getMessage() + " (" + root.getMessage() + ")";
        }
    }

    /**
     * Refuses to judge a record against a registry that does not hold its topic's value schema as the services register
     * it: that registry is not the services' (a wrong {@code --registry-url} answers every lookup 404, or 401), and every
     * record would seem unreadable there. The same check as {@code topics init --verify-only}.
     */
    private void requireTopicSchema(String topic) {
        String subject = Topics.all(settings.layout()).stream().filter(t -> t.name().equals(topic)).findFirst()
                .orElseThrow(() -> new CliException(topic + " is not one of Tether's topics")).valueSubject();
        SchemaRegistryInitializer.Verification verification;
        try {
            verification = SchemaRegistryInitializer.of(settings.registry()).verify(settings.layout());
        } catch (RegistryUnavailableException e) {
            throw new CliException(e.getMessage() + ", so whether the record can be read is not known: bring the registry back (a "
                    + "service waits for it by itself) rather than skip the record", e);
        } catch (IllegalStateException e) {
            throw new CliException("the registry at " + settings.registryUrl() + " is not the services' (see --registry-url): " + e.getMessage()
                    + "; refusing to judge the record there", e);
        }
        if (verification.ready().stream().noneMatch(s -> s.name().equals(subject))) {
            throw new CliException("the registry at " + settings.registryUrl() + " does not hold " + subject + " as the services register "
                    + "it, so it is not their registry (see --registry-url) and every record would seem unreadable there; refusing to "
                    + "judge the record there");
        }
    }

    private CliException unanswered(Throwable e) {
        return new CliException("Kafka at " + settings.bootstrapServers() + " did not answer within " + Durations.format(settings.timeout())
                + " (see --bootstrap and --timeout)", e);
    }

    /** Whether {@code topic} is one of Tether's topics (without the prefix). */
    public static boolean isTopic(String topic) {
        return Topics.all(TopicLayout.local()).stream().anyMatch(t -> t.name().equals(topic));
    }
}
