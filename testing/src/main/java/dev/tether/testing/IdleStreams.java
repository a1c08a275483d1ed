package dev.tether.testing;

import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.InvalidStateStoreException;

/**
 * A Kafka Streams instance for tests of interactive-query reads without a broker: built over a one-source topology
 * and never started (its clients never connect to the unreachable bootstrap address). Its {@link #state()} is the
 * one it was given, and each store lookup is answered by the given function and counted. Close it after the test: it
 * holds its state directory.
 */
public class IdleStreams extends KafkaStreams {

    /** A lookup as while the store restores: {@link InvalidStateStoreException}. */
    public static final Function<StoreQueryParameters<?>, Object> RESTORING = parameters -> {
        throw new InvalidStateStoreException("store " + parameters.storeName() + " is restoring");
    };

    /** A lookup that must not happen: the test fails. */
    public static final Function<StoreQueryParameters<?>, Object> NO_LOOKUP = parameters -> {
        throw new AssertionError("store " + parameters.storeName() + " was read");
    };

    private final State state;
    private final Function<StoreQueryParameters<?>, Object> lookup;
    private final AtomicInteger lookups = new AtomicInteger();
    private volatile StoreQueryParameters<?> lastLookup;

    public IdleStreams(String applicationId, Path stateDir, State state, Function<StoreQueryParameters<?>, Object> lookup) {
        super(topology(), properties(applicationId, stateDir));
        this.state = state;
        this.lookup = lookup;
    }

    @Override
    public State state() {
        return state;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T store(StoreQueryParameters<T> parameters) {
        lookups.incrementAndGet();
        lastLookup = parameters;
        return (T) lookup.apply(parameters);
    }

    /** How many store lookups were made. */
    public int lookups() {
        return lookups.get();
    }

    /** The last store lookup's parameters; null before the first. */
    public StoreQueryParameters<?> lastLookup() {
        return lastLookup;
    }

    private static Topology topology() {
        var builder = new StreamsBuilder();
        builder.stream("in");
        return builder.build();
    }

    private static Properties properties(String applicationId, Path stateDir) {
        var props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        return props;
    }
}
