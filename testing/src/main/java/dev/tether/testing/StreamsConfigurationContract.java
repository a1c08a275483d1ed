package dev.tether.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * What a Streams service's Kafka Streams application starts with when nothing is overridden
 * ({@link ServiceConfiguration}): the settings service-kit gives every Tether Streams application, named after the
 * service, and the service's own. A service's test extends it (a plain JUnit test, no Quarkus).
 */
public abstract class StreamsConfigurationContract {

    /** The service's {@code quarkus.application.name}. */
    protected abstract String serviceName();

    /** The service's default HTTP port. */
    protected abstract int port();

    /** The topics the application reads, comma-separated, as {@code quarkus.kafka-streams.topics} names them. */
    protected abstract String sourceTopics();

    /** Settings the service sets beyond service-kit's defaults, or instead of them. */
    protected Map<String, String> ownSettings() {
        return Map.of();
    }

    @Test
    void theStreamsSettings_areServiceKitsDefaults_andTheServicesOwn() {
        var expected = new TreeMap<>(Map.ofEntries(
                Map.entry("quarkus.kafka-streams.bootstrap-servers", "127.0.0.1:9092"),
                Map.entry("quarkus.kafka-streams.application-id", "tether-" + serviceName()),
                Map.entry("quarkus.kafka-streams.topics", sourceTopics()),
                Map.entry("quarkus.kafka-streams.application-server", "127.0.0.1:" + port()),
                Map.entry("kafka-streams.processing.guarantee", "exactly_once_v2"),
                Map.entry("kafka-streams.commit.interval.ms", "100"),
                Map.entry("kafka-streams.state.dir", ".tether/state/" + serviceName()),
                Map.entry("kafka-streams.group.instance.id", serviceName() + "-localhost-" + port()),
                Map.entry("kafka-streams.session.timeout.ms", "15000"),
                Map.entry("kafka-streams.heartbeat.interval.ms", "3000"),
                // a single instance's: a service run twice or more overrides them (deploy/k8s, compose's ha profile)
                Map.entry("kafka-streams.num.standby.replicas", "0"),
                Map.entry("kafka-streams.producer.transaction.timeout.ms", "10000"),
                // a transaction's offsets refused while the one before completes are sent again 5 ms later, not 100
                Map.entry("kafka-streams.producer.retry.backoff.ms", "5"),
                // a restore's last steps are not held half a second each at the broker
                Map.entry("kafka-streams.restore.consumer.fetch.max.wait.ms", "100"),
                // a task processes what it has buffered, without asking the broker about its empty partitions first
                Map.entry("kafka-streams.max.task.idle.ms", "-1"),
                Map.entry("kafka-streams.replication.factor", "1"),
                Map.entry("kafka-streams.producer.compression.type", "zstd"),
                // RocksDB's flushes and compactions with direct I/O where the state directory takes it
                Map.entry("kafka-streams.rocksdb.config.setter", "dev.tether.kit.kafka.RocksDbOptions"),
                // changelogs small segments that compact, so a restore reads the live keys, not every write ever made
                Map.entry("kafka-streams.topic.segment.bytes", "16777216"),
                Map.entry("kafka-streams.topic.segment.ms", "600000"),
                Map.entry("kafka-streams.topic.min.cleanable.dirty.ratio", "0.25"),
                // fail, never log and skip: a record that cannot be read or written stops its thread (StreamThreadRecovery)
                // (but for the records an operator names: none unless TETHER_SKIP_RECORDS names some)
                Map.entry("kafka-streams.deserialization.exception.handler", "dev.tether.kit.service.NamedRecordSkips"),
                Map.entry("kafka-streams.tether.skip-records", "none"),
                Map.entry("kafka-streams.processing.exception.handler",
                        "org.apache.kafka.streams.errors.LogAndFailProcessingExceptionHandler"),
                Map.entry("kafka-streams.processing.exception.handler.global.enabled", "true"),
                Map.entry("kafka-streams.production.exception.handler",
                        "org.apache.kafka.streams.errors.DefaultProductionExceptionHandler")));
        expected.putAll(ownSettings());

        assertEquals(expected, ServiceConfiguration.properties("kafka-streams.", "quarkus.kafka-streams."));
    }
}
