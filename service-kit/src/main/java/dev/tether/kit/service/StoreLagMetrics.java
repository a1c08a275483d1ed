package dev.tether.kit.service;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import java.util.Map;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.LagInfo;

/**
 * {@code tether_streams_store_lag_records}: the records this instance's local stores are behind their changelogs (or
 * source topics), summed over every store partition it holds, active, warm-up and standby alike. It reaches 0 once a
 * new instance has restored what it was given: with {@code kafka-streams.num.standby.replicas=1}, a copy of every
 * other instance's stores, so a SIGKILLed instance's partitions are taken over without a restore (docs/ARCHITECTURE.md,
 * "Takeover"). NaN while the Streams application is not running or the broker does not answer; not registered in a
 * service without one.
 */
@ApplicationScoped
public class StoreLagMetrics {

    void register(@Observes StartupEvent start, Instance<KafkaStreams> streams, MeterRegistry meters) {
        if (streams.isResolvable()) {
            Gauge.builder("tether.streams.store.lag", streams, s -> totalLag(s.get())).baseUnit("records").strongReference(true)
                    .description("records the local stores (active, warm-up, standby) are behind their changelogs")
                    .register(meters);
        }
    }

    /** The sum of {@link LagInfo#offsetLag()} over every local store partition; NaN if it cannot be known now. */
    static double totalLag(KafkaStreams streams) {
        KafkaStreams.State state = streams.state();
        if (state != KafkaStreams.State.RUNNING && state != KafkaStreams.State.REBALANCING) {
            return Double.NaN;
        }
        try {
            return sum(streams.allLocalStorePartitionLags());
        } catch (RuntimeException e) {
            return Double.NaN; // the end offsets could not be read: unknown, not 0
        }
    }

    static double sum(Map<String, Map<Integer, LagInfo>> lags) {
        return lags.values().stream().flatMap(byPartition -> byPartition.values().stream()).mapToLong(LagInfo::offsetLag).sum();
    }
}
