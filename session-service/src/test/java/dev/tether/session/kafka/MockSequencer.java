package dev.tether.session.kafka;

import dev.tether.avro.CommandReply;
import dev.tether.avro.SessionCommand;
import dev.tether.core.auth.TetherPrincipal;
import dev.tether.kit.tracing.KafkaTracing;
import dev.tether.session.domain.Command;
import dev.tether.session.domain.CommandEnvelope;
import dev.tether.session.domain.SessionHead;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/** A {@link SequencerProcessor} on Kafka Streams' {@link MockProcessorContext}, with its stores in memory: commands in, verdicts out. */
final class MockSequencer {

    static final Instant NOW = Instant.parse("2026-12-04T10:00:00Z");

    final MockProcessorContext<Object, Object> context = new MockProcessorContext<>();
    private final SequencerProcessor sequencer;
    private int commandCounter;

    MockSequencer() {
        this(null);
    }

    /** With {@code judge} in place of the sequencer's rules, or them if null. */
    MockSequencer(SequencerProcessor.Judge judge) {
        this(judge, SequencerStoreFormats.HEADS);
    }

    /** With {@code heads} as the heads' store format, e.g. one writing an older version during a rolling upgrade. */
    MockSequencer(SequencerProcessor.Judge judge, Serde<SessionHead> heads) {
        var tracing = new KafkaTracing(OpenTelemetry.noop(), "test");
        sequencer = judge == null ? new SequencerProcessor(tracing) : new SequencerProcessor(tracing, judge);
        store(StoreNames.HEADS, heads);
        store(StoreNames.EVENT_IDS, Serdes.Long());
        store(StoreNames.CALL_IDS, Serdes.Long());
        store(StoreNames.SESSIONS_BY_TENANT, SequencerStoreFormats.SUMMARIES);
        store(StoreNames.OPEN_BY_VERSION, Serdes.Long());
        context.setCurrentSystemTimeMs(NOW.toEpochMilli());
        sequencer.init(context);
    }

    private <V> void store(String name, Serde<V> values) {
        KeyValueStore<String, V> store = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), Serdes.String(), values)
                .withLoggingDisabled()
                .build();
        store.init(context.getStateStoreContext(), store);
        context.addStateStore(store);
    }

    /** Processes {@code command} of {@code principal} on session {@code sessionId}. */
    void process(String sessionId, TetherPrincipal principal, Command command) {
        process(encoded(sessionId, principal, command));
    }

    /** {@code command} as the REST edge writes it to {@code session-commands}, with a reply-to. */
    SessionCommand encoded(String sessionId, TetherPrincipal principal, Command command) {
        var envelope = new CommandEnvelope("cmd-" + (++commandCounter), sessionId, principal.tenantId(), principal, NOW, command);
        return CommandAvro.toAvro(envelope, "instance-1");
    }

    /** Processes a command as read from {@code session-commands}, whoever wrote it. */
    void process(SessionCommand value) {
        sequencer.process(new Record<>(value.getSessionId(), value, 0L));
    }

    /** The verdicts forwarded since the last call; forgets them. */
    List<CommandReply> replies() {
        List<CommandReply> replies = context.forwarded(SequencerProcessor.REPLIES_SINK).stream()
                .map(forwarded -> (CommandReply) forwarded.record().value())
                .toList();
        context.resetForwards();
        return replies;
    }
}
