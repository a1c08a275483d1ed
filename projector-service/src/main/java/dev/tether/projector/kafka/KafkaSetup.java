package dev.tether.projector.kafka;

import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.service.ServiceKafka;
import dev.tether.kit.tracing.KafkaTracing;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.apache.kafka.streams.Topology;

/** The projector's topology, run by the Quarkus Kafka Streams extension; how it reaches the registry is {@link ServiceKafka}'s. */
@ApplicationScoped
public class KafkaSetup {

    private final ServiceKafka kafka;

    KafkaSetup(ServiceKafka kafka) {
        this.kafka = kafka;
    }

    @Produces
    @Singleton
    Topology topology(TopicLayout layout, KafkaTracing tracing, StoreSignals signals) {
        return ProjectorTopology.build(layout, new ProjectorTopology.TopicSerdes(kafka.avroSerde(), kafka.avroSerde(), kafka.avroSerde(),
                kafka.avroSerde()), tracing, signals);
    }
}
