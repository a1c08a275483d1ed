package dev.tether.projector.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.avro.Checkpoint;
import dev.tether.avro.SessionEvent;
import dev.tether.avro.ToolRequest;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.UserMessage;
import dev.tether.core.id.StoreKey;
import dev.tether.kit.kafka.EventAvro;
import dev.tether.kit.kafka.SessionEventKey;
import dev.tether.kit.kafka.SessionEventKeySerde;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import dev.tether.kit.tracing.KafkaTracing;
import dev.tether.projector.domain.CallRecord;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fold's spans, with the services' sampling (a record's own decision, none of a new trace): a fold that requests a
 * call, or continues a sampled trace, is a span whose context its output carries on; any other fold starts none.
 */
class ProjectorTracingTest {

    private static final TopicLayout LAYOUT = ProjectorDrivers.LAYOUT;
    private static final String TRACE = "0af7651916cd43dd8448eb211c80319c";
    private static final String SEQUENCER_SPAN = "b7ad6b7169203331";

    @TempDir
    Path stateDir;

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().setSampler(Sampler.parentBased(Sampler.traceIdRatioBased(0.0)))
                    .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
    private TopologyTestDriver driver;
    private TestInputTopic<SessionEventKey, SessionEvent> events;
    private TestOutputTopic<String, Checkpoint> checkpoints;
    private TestOutputTopic<String, ToolRequest> requests;

    @BeforeEach
    void setUp() {
        var serdes = ProjectorDrivers.serdes();
        driver = ProjectorDrivers.start("projector-tracing-test", stateDir, serdes, new KafkaTracing(otel, "test"), new StoreSignals());
        events = driver.createInputTopic(LAYOUT.name(Topics.SESSION_EVENTS), new SessionEventKeySerde(), serdes.events().serializer());
        checkpoints = driver.createOutputTopic(LAYOUT.name(Topics.SESSION_CHECKPOINTS), Serdes.String().deserializer(),
                serdes.checkpoints().deserializer());
        requests = driver.createOutputTopic(LAYOUT.name(Topics.TOOL_REQUESTS), Serdes.String().deserializer(),
                serdes.requests().deserializer());
    }

    @AfterEach
    void tearDown() {
        driver.close();
        otel.close();
    }

    @Test
    void aFoldOfAnUnsampledTrace_startsNoSpan_andItsCheckpointCarriesTheEventsOwnContext() {
        String unsampled = traceparent("00");
        pipe(1, started(), unsampled);
        pipe(2, new UserMessage("hello", null), unsampled);

        List<TestRecord<String, Checkpoint>> out = checkpoints.readRecordsToList();
        assertThat(out).extracting(r -> r.value().getLastSeq()).containsExactly(1L, 2L);
        assertThat(out).allSatisfy(r -> assertThat(traceparentOf(r.headers())).isEqualTo(unsampled));
        assertThat(exporter.getFinishedSpanItems()).isEmpty();
    }

    @Test
    void anAuthorizedCall_ofAnUnsampledTrace_isFoldedInASpan_whoseContextItsRequestCarries() {
        String unsampled = traceparent("00");
        pipe(1, started(), unsampled);
        pipe(2, new AssistantMessage("x", null, List.of(new ToolCall("c1", "run_command", "{}")), new TokenUsage(1, 1)), unsampled);
        pipe(3, new ToolCallAuthorized("c1", AuthorizationBasis.POLICY), unsampled);

        TestRecord<String, ToolRequest> request = requests.readRecord();
        String carried = traceparentOf(request.headers());
        assertThat(carried).as("the same trace, unsampled, continued from the projector's span, not the sequencer's")
                .startsWith("00-" + TRACE + "-").endsWith("-00").doesNotContain(SEQUENCER_SPAN);
        CallRecord call = driver.<String, CallRecord>getKeyValueStore(ProjectorStores.CALLS).get(StoreKey.of("s1", "c1"));
        assertThat(call.traceId()).isEqualTo(TRACE);
        assertThat(exporter.getFinishedSpanItems()).as("unsampled: recorded nothing").isEmpty();
    }

    @Test
    void aFoldOfASampledTrace_isASpan_childOfTheEventsContext_whichItsCheckpointCarries() {
        pipe(1, started(), traceparent("01"));

        SpanData span = exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals("projector fold session_started"))
                .findFirst().orElseThrow();
        assertThat(span.getTraceId()).isEqualTo(TRACE);
        assertThat(span.getParentSpanId()).isEqualTo(SEQUENCER_SPAN);
        assertThat(traceparentOf(checkpoints.readRecord().headers())).isEqualTo("00-" + TRACE + "-" + span.getSpanId() + "-01");
    }

    @Test
    void aRecordWithoutTraceContext_isFoldedInASpan_ofANewTrace_asBefore() {
        pipe(1, started(), null);

        String carried = traceparentOf(checkpoints.readRecord().headers());
        assertThat(carried).as("a new trace, not sampled at ratio 0").matches("00-[0-9a-f]{32}-[0-9a-f]{16}-00");
    }

    private void pipe(long seq, EventPayload payload, String traceparent) {
        var event = new Event("e-s1-" + seq, "s1", "acme", seq, Instant.parse("2026-11-29T10:00:00Z").plusSeconds(seq),
                new Actor(ActorKind.USER, "alice"), "v1", payload);
        Headers headers = new RecordHeaders();
        if (traceparent != null) {
            headers.add("traceparent", traceparent.getBytes(StandardCharsets.UTF_8));
        }
        events.pipeInput(new TestRecord<>(new SessionEventKey("s1", seq), EventAvro.toAvro(event), headers, event.occurredAt()));
    }

    private static String traceparent(String flags) {
        return "00-" + TRACE + "-" + SEQUENCER_SPAN + "-" + flags;
    }

    private static String traceparentOf(Headers headers) {
        Header header = headers.lastHeader("traceparent");
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private static SessionStarted started() {
        return new SessionStarted("Rename Foo", "Be careful.", "model-x", "v1", ToolMode.WRITE, List.of(), null, null);
    }
}
