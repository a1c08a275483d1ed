package dev.tether.kit.service.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tether.testing.IdleStreams;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link InteractiveStores}: a store is handed out only while the application is RUNNING and the store is restored;
 * otherwise 503 with {@code Retry-After: 1} and a body naming the state, never a store. The Streams instance is never
 * started (no broker, {@link IdleStreams}); only its state and its store lookup are set.
 */
class InteractiveStoresTest {

    @TempDir
    Path stateDir;

    private final List<IdleStreams> opened = new ArrayList<>();

    @AfterEach
    void close() {
        opened.forEach(KafkaStreams::close);
    }

    private IdleStreams streams(KafkaStreams.State state, Function<StoreQueryParameters<?>, Object> lookup) {
        var streams = new IdleStreams("interactive-stores-test", stateDir, state, lookup);
        opened.add(streams);
        return streams;
    }

    @Test
    void whileNotRunning_everyStateAnswers503WithRetryAfter_namingIt_andNoStoreIsLookedUp() {
        for (KafkaStreams.State state : new KafkaStreams.State[] {KafkaStreams.State.CREATED, KafkaStreams.State.REBALANCING,
                KafkaStreams.State.PENDING_SHUTDOWN, KafkaStreams.State.ERROR}) {
            IdleStreams streams = streams(state, IdleStreams.NO_LOOKUP);
            var stores = new InteractiveStores(streams, "the widget state");

            ApiException refused = catchThrowableOfType(ApiException.class, () -> stores.keyValue("widgets"));

            assertThat(refused).as("%s", state).isNotNull();
            var response = refused.toResponse();
            assertThat(response.getStatus()).isEqualTo(503);
            assertThat(response.getHeaderString("Retry-After")).isEqualTo("1");
            assertThat(refused.body()).containsOnly(Map.entry("error", "unavailable"),
                    Map.entry("message", "the widget state is " + state.name().toLowerCase(Locale.ROOT) + "; try again shortly"));
            assertThat(streams.lookups()).isZero();
        }
    }

    @Test
    void whileAStoreRestores_theAnswerIs503WithRetryAfter() {
        IdleStreams streams = streams(KafkaStreams.State.RUNNING, IdleStreams.RESTORING);

        ApiException refused = catchThrowableOfType(ApiException.class, () -> new InteractiveStores(streams, "the widget state")
                .keyValue("widgets"));

        assertThat(refused).isNotNull();
        assertThat(refused.status()).isEqualTo(503);
        assertThat(refused.headers()).containsEntry("Retry-After", "1");
        assertThat(refused.body()).containsEntry("error", "unavailable").containsEntry("message", "the widget state is restoring; try again shortly");
        assertThat(streams.lookups()).isEqualTo(1);
    }

    @Test
    void whileRunning_theStoreOfThatName_isReturned_overEveryLocalPartition_neverStale() {
        Object widgets = Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {ReadOnlyKeyValueStore.class},
                (proxy, method, args) -> null);
        IdleStreams streams = streams(KafkaStreams.State.RUNNING, parameters -> widgets);

        ReadOnlyKeyValueStore<String, String> store = new InteractiveStores(streams, "the widget state").keyValue("widgets");

        assertThat((Object) store).isSameAs(widgets);
        assertThat(streams.lookups()).isEqualTo(1);
        assertThat(streams.lastLookup().storeName()).isEqualTo("widgets");
        assertThat(streams.lastLookup().partition()).as("all of this instance's partitions").isNull();
        assertThat(streams.lastLookup().staleStoresEnabled()).as("never stale data").isFalse();
        assertThat(streams.lastLookup().queryableStoreType().getClass().getSimpleName()).contains("KeyValue");
    }
}
