package dev.tether.session.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.avro.CommandReply;
import dev.tether.avro.SessionCommand;
import dev.tether.core.auth.Role;
import dev.tether.core.auth.TetherPrincipal;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.ProposedEvent;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.UserMessage;
import dev.tether.kit.tracing.KafkaTracing;
import dev.tether.session.domain.Command;
import dev.tether.session.domain.CommandEnvelope;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Which commands' transactions the sequencer asks Kafka Streams to commit at once: every one but an append, so a claim's
 * caller does not wait for the next commit interval (bench/README.md, figure 7).
 */
class SequencerCommitTest {

    private static final TetherPrincipal AGENT = new TetherPrincipal("agent-1", "acme", Set.of(Role.AGENT));

    private final MockProcessorContext<Object, Object> context = new MockProcessorContext<>();
    private final SequencerProcessor sequencer = new SequencerProcessor(new KafkaTracing(OpenTelemetry.noop(), "test"));
    private int commandCounter;

    @BeforeEach
    void setUp() {
        store(StoreNames.HEADS, SequencerStoreFormats.HEADS);
        store(StoreNames.EVENT_IDS, Serdes.Long());
        store(StoreNames.CALL_IDS, Serdes.Long());
        store(StoreNames.SESSIONS_BY_TENANT, SequencerStoreFormats.SUMMARIES);
        store(StoreNames.OPEN_BY_VERSION, Serdes.Long());
        context.setCurrentSystemTimeMs(Instant.parse("2026-12-04T10:00:00Z").toEpochMilli());
        sequencer.init(context);
    }

    @Test
    void anAppend_waitsForTheCommitInterval_whileAClaimAndAnErasure_areCommittedAtOnce() {
        process(AGENT, new Command.AppendEvents(List.of(started()), null, null));
        assertThat(verdicts()).as("the session started").containsExactly(true);
        assertThat(context.committed()).as("an append is committed with its commit interval").isFalse();

        process(AGENT, new Command.AppendEvents(List.of(new ProposedEvent("e2", user(), new UserMessage("hello", null))), null, null));
        assertThat(verdicts()).containsExactly(true);
        assertThat(context.committed()).isFalse();

        process(AGENT, new Command.ClaimSession("w1", "v1", false));
        assertThat(verdicts()).as("the claim is accepted").containsExactly(true);
        assertThat(context.committed()).as("a claim is committed at once").isTrue();

        context.resetCommit();
        process(AGENT, new Command.EraseSession("the owner asked"));
        assertThat(verdicts()).as("the erasure is accepted").containsExactly(true);
        assertThat(context.committed()).as("an erasure is committed at once").isTrue();
    }

    @Test
    void aRefusedClaim_isCommittedAtOnceToo_forItsCallerWaitsForTheVerdictAlike() {
        process(AGENT, new Command.ClaimSession("w1", "v1", false));
        assertThat(verdicts()).as("no such session").containsExactly(false);
        assertThat(context.committed()).isTrue();
    }

    private <V> void store(String name, Serde<V> values) {
        KeyValueStore<String, V> store = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), Serdes.String(), values)
                .withLoggingDisabled()
                .build();
        store.init(context.getStateStoreContext(), store);
        context.addStateStore(store);
    }

    private void process(TetherPrincipal principal, Command command) {
        var envelope = new CommandEnvelope("cmd-" + (++commandCounter), "s1", principal.tenantId(), principal,
                Instant.parse("2026-12-04T10:00:00Z"), command);
        SessionCommand value = CommandAvro.toAvro(envelope, "instance-1");
        sequencer.process(new Record<>("s1", value, 0L));
    }

    /** Whether each verdict forwarded since the last call accepted its command; forgets them. */
    private List<Boolean> verdicts() {
        List<Boolean> accepted = context.forwarded(SequencerProcessor.REPLIES_SINK).stream()
                .map(forwarded -> ((CommandReply) forwarded.record().value()).getAccepted())
                .toList();
        context.resetForwards();
        return accepted;
    }

    private static ProposedEvent started() {
        return new ProposedEvent("e1", user(), new SessionStarted("rename Foo to Bar", "You are careful.", "model-x", "v1", ToolMode.WRITE,
                List.of(), null, null));
    }

    private static Actor user() {
        return new Actor(ActorKind.USER, "agent-1");
    }
}
