package dev.tether.kit.service;

import dev.tether.kit.kafka.RestoreLog;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** One {@link RestoreLog} per service: a {@code StateRestoreListener} bean, which the Quarkus Kafka Streams extension registers. */
public class RestoreLogProducer {

    @Produces
    @Singleton
    RestoreLog restoreLog() {
        return new RestoreLog();
    }
}
