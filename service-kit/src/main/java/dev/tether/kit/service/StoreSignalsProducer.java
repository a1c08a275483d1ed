package dev.tether.kit.service;

import dev.tether.kit.kafka.StoreSignals;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * One {@link StoreSignals} per service: its topology's writers signal it, its REST resources wait on it. Being also a
 * {@code KafkaStreams.StateListener} bean, the Quarkus Kafka Streams extension registers it with the application.
 */
public class StoreSignalsProducer {

    @Produces
    @Singleton
    StoreSignals storeSignals() {
        return new StoreSignals();
    }
}
