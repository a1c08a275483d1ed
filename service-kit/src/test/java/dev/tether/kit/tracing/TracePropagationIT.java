package dev.tether.kit.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.kit.kafka.TopicInitializer;
import dev.tether.testing.TetherStack;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The trace context travels in record headers through the real broker and an exactly-once Kafka
 * Streams processor: a "REST" span, the processor's span and a downstream consumer's span form
 * one trace, each the parent of the next.
 */
class TracePropagationIT {

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
    private final KafkaTracing tracing = new KafkaTracing(otel, "tether-test");
    private KafkaStreams streams;
    private Path stateDir;

    @AfterEach
    void tearDown() throws Exception {
        if (streams != null) {
            streams.close(Duration.ofSeconds(30));
        }
        if (stateDir != null) {
            try (var paths = Files.walk(stateDir)) {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        otel.close();
    }

    @Test
    void oneTrace_fromRestCall_throughStreamsProcessor_toConsumer() throws Exception {
        TetherStack stack = TetherStack.shared();
        String prefix = "trace-" + UUID.randomUUID();
        String in = prefix + ".commands";
        String out = prefix + ".events";
        try (Admin admin = Admin.create(stack.clientConfig())) {
            new TopicInitializer(admin, Duration.ofSeconds(30)).create(List.of(new NewTopic(in, 1, (short) 1), new NewTopic(out, 1, (short) 1)));
        }
        streams = startSequencerLike(stack, prefix, in, out);

        // the REST call: a server span, whose context goes into the command's headers
        Span rest = otel.getTracer("rest").spanBuilder("POST /v1/sessions/{id}/events").setSpanKind(SpanKind.SERVER).startSpan();
        try (Scope ignored = rest.makeCurrent();
                var producer = new KafkaProducer<>(stack.clientConfig(), new StringSerializer(), new StringSerializer())) {
            var headers = new RecordHeaders();
            tracing.inject(Context.current(), headers);
            producer.send(new ProducerRecord<>(in, null, "s-1", "append", headers)).get();
        } finally {
            rest.end();
        }

        // the next service: consumes the processor's output and continues the trace
        var config = new HashMap<>(stack.clientConfig());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, prefix + ".projector");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (var consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(out));
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                for (var record : consumer.poll(Duration.ofMillis(200))) {
                    assertThat(record.value()).isEqualTo("appended");
                    tracing.startSpan("projector fold", SpanKind.CONSUMER, record.headers()).end();
                    return true;
                }
                return false;
            });
        }

        List<SpanData> spans = exporter.getFinishedSpanItems();
        SpanData restSpan = named(spans, "POST /v1/sessions/{id}/events");
        SpanData sequencerSpan = named(spans, "sequencer decide");
        SpanData projectorSpan = named(spans, "projector fold");
        assertThat(spans).extracting(SpanData::getTraceId).containsOnly(restSpan.getTraceId());
        assertThat(sequencerSpan.getParentSpanId()).isEqualTo(restSpan.getSpanId());
        assertThat(projectorSpan.getParentSpanId()).isEqualTo(sequencerSpan.getSpanId());
        assertThat(sequencerSpan.getKind()).isEqualTo(SpanKind.CONSUMER);
    }

    private KafkaStreams startSequencerLike(TetherStack stack, String prefix, String in, String out) throws Exception {
        stateDir = Files.createTempDirectory("trace-it-");
        var topology = new Topology();
        topology.addSource("commands", Serdes.String().deserializer(), Serdes.String().deserializer(), in);
        topology.addProcessor("decide", () -> new Processor<String, String, String, String>() {
            private ProcessorContext<String, String> context;

            @Override
            public void init(ProcessorContext<String, String> context) {
                this.context = context;
            }

            @Override
            public void process(Record<String, String> record) {
                Span span = tracing.startSpan("sequencer decide", SpanKind.CONSUMER, record.headers());
                try (Scope ignored = span.makeCurrent()) {
                    tracing.inject(Context.current(), record.headers());
                    context.forward(record.withValue("appended"));
                } finally {
                    span.end();
                }
            }
        }, "commands");
        topology.addSink("events", out, Serdes.String().serializer(), Serdes.String().serializer(), "decide");

        var props = new Properties();
        props.putAll(stack.clientConfig());
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, prefix + ".sequencer");
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        var kafkaStreams = new KafkaStreams(topology, props);
        kafkaStreams.start();
        return kafkaStreams;
    }

    private static SpanData named(List<SpanData> spans, String name) {
        return spans.stream().filter(s -> s.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no span '" + name + "' in " + spans));
    }
}
