package dev.tether.kit.service;

import dev.tether.kit.kafka.RegistryUnavailableException;
import io.quarkus.arc.Unremovable;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.jboss.logging.Logger;

/**
 * What a Kafka Streams thread that fails does next (the Quarkus extension installs this bean as the application's
 * uncaught-exception handler). In the two recoverable cases the thread is replaced: the replacement resumes from the
 * last committed offsets, and under exactly-once the failed thread's open transaction is aborted, so its records are
 * processed again, once; nothing is skipped.
 *
 * <ul>
 *   <li>The schema registry does not answer ({@link RegistryUnavailableException}: a record whose schema it did not
 *       know yet could not be read or written): the thread waits until the registry answers again (its tasks stay open
 *       meanwhile, so their stores keep serving reads), at most {@link #MAX_WAIT}, and is then replaced. A registry that
 *       answers its probe at once while the thread's lookup failed (one schema it answers HTTP 5xx for, say) is no
 *       outage that passes: the thread is replaced at once, at most {@link #REGISTRY_REPLACEMENTS} times in
 *       {@link #REGISTRY_WINDOW}, then the client stops as below, rather than meet the same record again for ever.</li>
 *   <li>The brokers answered a client call with an error, or not in time (an {@link ApiException} in the cause chain,
 *       e.g. {@code InvalidTxnStateException} from a commit while a partition leader or the transaction coordinator
 *       moves, {@code TimeoutException}, {@code NotEnoughReplicasException}): the thread is replaced at once. Kafka
 *       Streams' own default would stop the whole client for good, seen on a 3-broker cluster whose leader was killed
 *       (issue 15 §5). At most {@link #BROKER_REPLACEMENTS} such replacements in {@link #BROKER_WINDOW}: past that the
 *       failure is not passing, and the client stops as below.</li>
 *   <li>Any other failure (a bug, a store value that cannot be read, a record that cannot be serialized) is not one a
 *       retry fixes: the client stops ({@code SHUTDOWN_CLIENT}, Kafka Streams' own default), its liveness goes DOWN and
 *       the supervisor restarts it.</li>
 * </ul>
 */
@ApplicationScoped
@Unremovable // looked up by the Kafka Streams extension only through Instance<StreamsUncaughtExceptionHandler>
public class StreamThreadRecovery implements StreamsUncaughtExceptionHandler {

    private static final Logger LOG = Logger.getLogger(StreamThreadRecovery.class);

    /** The longest a failed thread waits for the registry before it is replaced anyway (below the poll interval, 5 min). */
    public static final Duration MAX_WAIT = Duration.ofMinutes(2);

    /** How many threads a broker-side failure may replace within {@link #BROKER_WINDOW} before the client stops. */
    public static final int BROKER_REPLACEMENTS = 5;

    /** The window {@link #BROKER_REPLACEMENTS} counts in. */
    public static final Duration BROKER_WINDOW = Duration.ofMinutes(10);

    /**
     * How many threads a registry failure may replace within {@link #REGISTRY_WINDOW} when the registry answers its probe
     * at once (a lookup it keeps failing, not an outage) before the client stops.
     */
    public static final int REGISTRY_REPLACEMENTS = 5;

    /** The window {@link #REGISTRY_REPLACEMENTS} counts in. */
    public static final Duration REGISTRY_WINDOW = Duration.ofMinutes(10);

    private final RegistryAccess registry;
    private final Duration maxWait;
    private final Clock clock;
    private final Deque<Instant> brokerReplacements = new ArrayDeque<>();
    private final Deque<Instant> registryReplacements = new ArrayDeque<>();

    @Inject // the bean constructor: with two constructors and none marked, CDI found none and made no bean
    StreamThreadRecovery(RegistryAccess registry) {
        this(registry, MAX_WAIT, Clock.systemUTC());
    }

    StreamThreadRecovery(RegistryAccess registry, Duration maxWait, Clock clock) {
        this.registry = registry;
        this.maxWait = maxWait;
        this.clock = clock;
    }

    @Override
    public StreamThreadExceptionResponse handle(Throwable exception) {
        var unavailable = RegistryUnavailableException.in(exception);
        if (unavailable.isPresent()) {
            return afterRegistryOutage(unavailable.get());
        }
        var broker = brokerError(exception);
        if (broker.isPresent()) {
            return afterBrokerError(broker.get(), exception);
        }
        LOG.error("a Kafka Streams thread failed; stopping the Kafka Streams client (liveness DOWN, restart the service)", exception);
        return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    }

    private StreamThreadExceptionResponse afterRegistryOutage(RegistryUnavailableException unavailable) {
        LOG.warnf("a Kafka Streams thread stopped: %s. It waits for the registry (at most %s), then is replaced and goes on "
                + "from the last commit; nothing is skipped", unavailable.getMessage(), maxWait);
        if (registry.answersNow()) {
            // no outage the probe sees: the thread's own lookup fails, and would fail the same record again
            if (!withinCap(registryReplacements, REGISTRY_REPLACEMENTS, REGISTRY_WINDOW)) {
                LOG.errorf(unavailable, "the registry answers its probe, but a Kafka Streams thread failed on it more than %d times "
                        + "within %s; stopping the Kafka Streams client (liveness DOWN, restart the service)", REGISTRY_REPLACEMENTS,
                        REGISTRY_WINDOW);
                return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
            }
            LOG.infof("the registry answers its probe: replacing the stream thread (at most %d times within %s)",
                    REGISTRY_REPLACEMENTS, REGISTRY_WINDOW);
            return StreamThreadExceptionResponse.REPLACE_THREAD;
        }
        boolean back = registry.awaitReachable(maxWait);
        if (registry.closing()) {
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        }
        LOG.infof(back ? "the registry answers again: replacing the stream thread"
                : "the registry still does not answer after %s: replacing the stream thread anyway", maxWait);
        return StreamThreadExceptionResponse.REPLACE_THREAD;
    }

    /**
     * Whether one more replacement fits in {@code replacements} (their times): at most {@code max} within {@code window};
     * if it does, it is counted.
     */
    private synchronized boolean withinCap(Deque<Instant> replacements, int max, Duration window) {
        Instant now = clock.instant();
        while (!replacements.isEmpty() && replacements.peekFirst().isBefore(now.minus(window))) {
            replacements.removeFirst();
        }
        if (replacements.size() >= max) {
            return false;
        }
        replacements.addLast(now);
        return true;
    }

    private synchronized StreamThreadExceptionResponse afterBrokerError(ApiException error, Throwable exception) {
        if (!withinCap(brokerReplacements, BROKER_REPLACEMENTS, BROKER_WINDOW)) {
            LOG.errorf(exception, "a Kafka Streams thread failed on a broker error (%s), more than %d times within %s; stopping the "
                    + "Kafka Streams client (liveness DOWN, restart the service)", error, BROKER_REPLACEMENTS, BROKER_WINDOW);
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        }
        LOG.warnf(exception, "a Kafka Streams thread failed on a broker error (%s); replacing it (%d of %d within %s): it goes on "
                + "from the last commit, its open transaction aborted; nothing is skipped", error, brokerReplacements.size(),
                BROKER_REPLACEMENTS, BROKER_WINDOW);
        return StreamThreadExceptionResponse.REPLACE_THREAD;
    }

    /** The first error a broker answered (or a client call that timed out) in the cause chain, if any. */
    static Optional<ApiException> brokerError(Throwable exception) {
        for (Throwable t = exception; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ApiException api) {
                return Optional.of(api);
            }
        }
        return Optional.empty();
    }
}
