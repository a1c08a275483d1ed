package dev.tether.kit.service;

import dev.tether.kit.kafka.RegistryUnavailableException;
import io.quarkus.arc.Unremovable;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.jboss.logging.Logger;

/**
 * What a Kafka Streams thread that fails does next (the Quarkus extension installs this bean as the application's
 * uncaught-exception handler).
 *
 * <ul>
 *   <li>It failed because the schema registry does not answer ({@link RegistryUnavailableException}: a record whose
 *       schema it did not know yet could not be read or written; it was neither skipped nor half-processed): the thread
 *       waits until the registry answers again (its tasks stay open meanwhile, so their stores keep serving reads), at
 *       most {@link #MAX_WAIT}, and is then replaced. The replacement resumes from the last committed offsets: under
 *       exactly-once the failed thread's open transaction is aborted and its records are processed again, once.</li>
 *   <li>Any other failure is a bug or a broken dependency this service cannot fix by itself: the client stops
 *       ({@code SHUTDOWN_CLIENT}, Kafka Streams' own default), its liveness goes DOWN and the supervisor restarts it.</li>
 * </ul>
 */
@ApplicationScoped
@Unremovable // looked up by the Kafka Streams extension only through Instance<StreamsUncaughtExceptionHandler>
public class StreamThreadRecovery implements StreamsUncaughtExceptionHandler {

    private static final Logger LOG = Logger.getLogger(StreamThreadRecovery.class);

    /** The longest a failed thread waits for the registry before it is replaced anyway (below the poll interval, 5 min). */
    public static final Duration MAX_WAIT = Duration.ofMinutes(2);

    private final RegistryAccess registry;
    private final Duration maxWait;

    @Inject // the bean constructor: with two constructors and none marked, CDI found none and made no bean
    StreamThreadRecovery(RegistryAccess registry) {
        this(registry, MAX_WAIT);
    }

    StreamThreadRecovery(RegistryAccess registry, Duration maxWait) {
        this.registry = registry;
        this.maxWait = maxWait;
    }

    @Override
    public StreamThreadExceptionResponse handle(Throwable exception) {
        var unavailable = RegistryUnavailableException.in(exception);
        if (unavailable.isEmpty()) {
            LOG.error("a Kafka Streams thread failed; stopping the Kafka Streams client (liveness DOWN, restart the service)", exception);
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        }
        LOG.warnf("a Kafka Streams thread stopped: %s. It waits for the registry (at most %s), then is replaced and goes on "
                + "from the last commit; nothing is skipped", unavailable.get().getMessage(), maxWait);
        boolean back = registry.awaitReachable(maxWait);
        if (registry.closing()) {
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        }
        LOG.infof(back ? "the registry answers again: replacing the stream thread"
                : "the registry still does not answer after %s: replacing the stream thread anyway", maxWait);
        return StreamThreadExceptionResponse.REPLACE_THREAD;
    }
}
