package dev.tether.kit.service.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.QueryableStoreType;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link InteractiveStores}: a store is handed out only while the application is RUNNING and the store is restored;
 * otherwise 503 with {@code Retry-After: 1} and a body naming the state, never a store. The Streams instance is never
 * started (no broker); only its state and its store lookup are set.
 */
class InteractiveStoresTest {

    @TempDir
    Path stateDir;

    private final List<StubStreams> opened = new ArrayList<>();

    @AfterEach
    void close() {
        opened.forEach(KafkaStreams::close);
    }

    private StubStreams streams(KafkaStreams.State state, Lookup lookup) {
        var streams = new StubStreams(state, lookup, stateDir);
        opened.add(streams);
        return streams;
    }

    @Test
    void whileNotRunning_everyStateAnswers503WithRetryAfter_namingIt_andNoStoreIsLookedUp() {
        for (KafkaStreams.State state : new KafkaStreams.State[] {KafkaStreams.State.CREATED, KafkaStreams.State.REBALANCING,
                KafkaStreams.State.PENDING_SHUTDOWN, KafkaStreams.State.ERROR}) {
            StubStreams streams = streams(state, Lookup.FAILS_RESTORING);
            var stores = new InteractiveStores(streams, "the widget state");

            ApiException refused = catchThrowableOfType(ApiException.class, () -> stores.keyValue("widgets"));

            assertThat(refused).as("%s", state).isNotNull();
            var response = refused.toResponse();
            assertThat(response.getStatus()).isEqualTo(503);
            assertThat(response.getHeaderString("Retry-After")).isEqualTo("1");
            assertThat(refused.body()).containsOnly(Map.entry("error", "unavailable"),
                    Map.entry("message", "the widget state is " + state.name().toLowerCase(Locale.ROOT) + "; try again shortly"));
            assertThat(streams.lookups).isZero();
        }
    }

    @Test
    void whileAStoreRestores_theAnswerIs503WithRetryAfter() {
        StubStreams streams = streams(KafkaStreams.State.RUNNING, Lookup.FAILS_RESTORING);

        ApiException refused = catchThrowableOfType(ApiException.class, () -> new InteractiveStores(streams, "the widget state")
                .keyValue("widgets"));

        assertThat(refused).isNotNull();
        assertThat(refused.status()).isEqualTo(503);
        assertThat(refused.headers()).containsEntry("Retry-After", "1");
        assertThat(refused.body()).containsEntry("error", "unavailable").containsEntry("message", "the widget state is restoring; try again shortly");
        assertThat(streams.lookups).isEqualTo(1);
    }

    @Test
    void whileRunning_theStoreOfThatNameIsReturned_overEveryLocalPartition() {
        StubStreams streams = streams(KafkaStreams.State.RUNNING, Lookup.ANSWERS);

        ReadOnlyKeyValueStore<String, String> store = new InteractiveStores(streams, "the widget state").keyValue("widgets");

        assertThat(store).isNull(); // the stub answers null: what matters is which lookup was made
        assertThat(streams.lookups).isEqualTo(1);
        assertThat(streams.last.storeName()).isEqualTo("widgets");
        assertThat(streams.last.partition()).as("all of this instance's partitions").isNull();
        assertThat(streams.last.staleStoresEnabled()).as("never stale data").isFalse();
    }

    private enum Lookup { ANSWERS, FAILS_RESTORING }

    /** A Kafka Streams instance that is never started: a fixed state, and a store lookup that answers or fails as during a restore. */
    private static final class StubStreams extends KafkaStreams {
        private final State state;
        private final Lookup lookup;
        int lookups;
        StoreQueryParameters<?> last;

        StubStreams(State state, Lookup lookup, Path stateDir) {
            super(topology(), config(stateDir));
            this.state = state;
            this.lookup = lookup;
        }

        @Override
        public State state() {
            return state;
        }

        @Override
        public <T> T store(StoreQueryParameters<T> parameters) {
            lookups++;
            last = parameters;
            if (lookup == Lookup.FAILS_RESTORING) {
                throw new InvalidStateStoreException("store " + parameters.storeName() + " is restoring");
            }
            QueryableStoreType<T> type = parameters.queryableStoreType();
            assertThat(type.getClass().getSimpleName()).contains("KeyValue");
            return null;
        }

        private static org.apache.kafka.streams.Topology topology() {
            var builder = new StreamsBuilder();
            builder.stream("in");
            return builder.build();
        }

        private static Properties config(Path stateDir) {
            var props = new Properties();
            props.put(StreamsConfig.APPLICATION_ID_CONFIG, "interactive-stores-test");
            props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1");
            props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
            return props;
        }
    }
}
