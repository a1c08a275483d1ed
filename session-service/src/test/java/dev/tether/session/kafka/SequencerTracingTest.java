package dev.tether.session.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.avro.Checkpoint;
import dev.tether.avro.CommandReply;
import dev.tether.avro.HarnessVersion;
import dev.tether.avro.SessionCommand;
import dev.tether.avro.SessionEvent;
import dev.tether.core.auth.Role;
import dev.tether.core.auth.TetherPrincipal;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.ProposedEvent;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.UserMessage;
import dev.tether.kit.kafka.EventAvro;
import dev.tether.kit.kafka.SessionEventKey;
import dev.tether.kit.kafka.SessionEventKeySerde;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import dev.tether.kit.tracing.KafkaTracing;
import dev.tether.session.domain.Command;
import dev.tether.session.domain.CommandEnvelope;
import dev.tether.testing.PlainAvroSerde;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every event the sequencer appends records the trace it was appended in: the trace of the command's {@code traceparent}
 * (the REST request's), the same trace its own record's header carries, whether the trace is sampled or not; without
 * tracing, no trace id.
 */
class SequencerTracingTest {

    /** The stores' directory, this test's own: under the fixed default two builds running the test at once collide. */
    @TempDir
    Path stateDir;

    private static final TopicLayout LAYOUT = TopicLayout.local();
    private static final TetherPrincipal AGENT = new TetherPrincipal("agent-1", "acme", Set.of(Role.AGENT));
    private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

    @Test
    void eachAppendedEvent_recordsTheTraceOfItsCommand_asItsRecordsHeaderDoes_sampledOrNot() {
        for (String flags : List.of("01", "00")) {
            var tracing = new KafkaTracing(OpenTelemetrySdk.builder()
                    .setTracerProvider(SdkTracerProvider.builder().setSampler(Sampler.parentBased(Sampler.traceIdRatioBased(0.0))).build())
                    .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance())).build(), "test");
            try (var driver = driver(tracing)) {
                var commands = commands(driver);
                var events = events(driver);
                var headers = new RecordHeaders().add("traceparent",
                        ("00-" + TRACE + "-00f067aa0ba902b7-" + flags).getBytes(StandardCharsets.UTF_8));

                commands.pipeInput(new TestRecord<>("s1", command("s1"), headers));

                List<TestRecord<SessionEventKey, SessionEvent>> out = events.readRecordsToList();
                assertThat(out).hasSize(2);
                for (TestRecord<SessionEventKey, SessionEvent> record : out) {
                    assertThat(record.value().getTraceId()).as("flags " + flags).isEqualTo(TRACE);
                    assertThat(EventAvro.fromAvro(record.value()).traceId()).isEqualTo(TRACE);
                    String traceparent = new String(record.headers().lastHeader("traceparent").value(), StandardCharsets.UTF_8);
                    assertThat(traceparent).as("the record's header names the same trace").startsWith("00-" + TRACE + "-");
                }
            }
        }
    }

    @Test
    void withoutTracing_anEventRecordsNoTraceId() {
        try (var driver = driver(new KafkaTracing(OpenTelemetry.noop(), "test"))) {
            commands(driver).pipeInput("s1", command("s1"));

            assertThat(events(driver).readValuesToList()).hasSize(2).allSatisfy(e -> assertThat(e.getTraceId()).isNull());
        }
    }

    private TopologyTestDriver driver(KafkaTracing tracing) {
        var props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "sequencer-tracing-test");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        return new TopologyTestDriver(SequencerTopology.build(LAYOUT, serdes(), tracing, new StoreSignals()), props);
    }

    private static SequencerTopology.TopicSerdes serdes() {
        return new SequencerTopology.TopicSerdes(new PlainAvroSerde<>(SessionCommand.getClassSchema()),
                new PlainAvroSerde<>(SessionEvent.getClassSchema()), new PlainAvroSerde<>(CommandReply.getClassSchema()),
                new PlainAvroSerde<>(Checkpoint.getClassSchema()), new PlainAvroSerde<>(HarnessVersion.getClassSchema()));
    }

    private static TestInputTopic<String, SessionCommand> commands(TopologyTestDriver driver) {
        return driver.createInputTopic(LAYOUT.name(Topics.SESSION_COMMANDS), Serdes.String().serializer(), serdes().commands().serializer());
    }

    private static TestOutputTopic<SessionEventKey, SessionEvent> events(TopologyTestDriver driver) {
        return driver.createOutputTopic(LAYOUT.name(Topics.SESSION_EVENTS), new SessionEventKeySerde(), serdes().events().deserializer());
    }

    private static SessionCommand command(String sessionId) {
        var started = new ProposedEvent("e1", new Actor(ActorKind.USER, "agent-1"), new SessionStarted("rename Foo to Bar", "You are careful.", "model-x", "v1", ToolMode.WRITE,
                List.of(), null, null));
        var message = new ProposedEvent("e2", new Actor(ActorKind.USER, "agent-1"), new UserMessage("hello", null));
        var envelope = new CommandEnvelope("cmd-1", sessionId, AGENT.tenantId(), AGENT, Instant.parse("2026-11-29T10:00:00Z"),
                new Command.AppendEvents(List.of(started, message), null, null));
        return CommandAvro.toAvro(envelope, null);
    }
}
