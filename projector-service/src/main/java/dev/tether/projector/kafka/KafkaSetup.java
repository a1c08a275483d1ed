package dev.tether.projector.kafka;

import dev.tether.kit.kafka.AvroSerdes;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.service.TetherConfig;
import dev.tether.kit.tracing.KafkaTracing;
import io.opentelemetry.api.OpenTelemetry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.streams.Topology;

/** The projector's topology, run by the Quarkus Kafka Streams extension. */
@ApplicationScoped
public class KafkaSetup {

    private final TetherConfig config;

    KafkaSetup(TetherConfig config) {
        this.config = config;
    }

    @Produces
    @Singleton
    KafkaTracing tracing(OpenTelemetry openTelemetry) {
        return new KafkaTracing(openTelemetry, "tether-projector-service");
    }

    @Produces
    @Singleton
    Topology topology(TopicLayout layout, KafkaTracing tracing, StoreSignals signals) {
        return ProjectorTopology.build(layout, new ProjectorTopology.TopicSerdes(serde(), serde(), serde(), serde()), tracing, signals);
    }

    private <T extends SpecificRecord> Serde<T> serde() {
        return AvroSerdes.valueSerde(config.registry().url());
    }
}
