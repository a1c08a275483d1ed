package dev.tether.kit.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.baggage.propagation.W3CBaggagePropagator;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class KafkaTracingTest {

    private static final String TRACE = "0af7651916cd43dd8448eb211c80319c";
    private static final String SPAN = "b7ad6b7169203331";

    private final KafkaTracing tracing = new KafkaTracing(otel(W3CTraceContextPropagator.getInstance()), "test");

    @Test
    void unsampled_readsTheSampledFlagOfTheTraceparentHeader() {
        assertThat(tracing.unsampled(traceparent("00-" + TRACE + "-" + SPAN + "-00"))).isTrue();
        assertThat(tracing.unsampled(traceparent("00-" + TRACE + "-" + SPAN + "-02"))).as("a flag other than sampled").isTrue();
        assertThat(tracing.unsampled(traceparent("00-" + TRACE + "-" + SPAN + "-01"))).isFalse();
        assertThat(tracing.unsampled(traceparent("00-" + TRACE + "-" + SPAN + "-03"))).isFalse();
    }

    @Test
    void unsampled_isFalse_forARecordWithoutAValidTraceparent_soThatASpanDecides() {
        assertThat(tracing.unsampled(new RecordHeaders())).as("no header").isFalse();
        assertThat(tracing.unsampled(null)).isFalse();
        assertThat(tracing.unsampled(new RecordHeaders().add("traceparent", null))).as("no value").isFalse();
        List<String> invalid = List.of(
                "00-" + "0".repeat(32) + "-" + SPAN + "-00", // all-zero trace id
                "00-" + TRACE + "-" + "0".repeat(16) + "-00", // all-zero span id
                "00-" + TRACE.toUpperCase() + "-" + SPAN + "-00", // W3C ids are lowercase
                "00-" + TRACE + "-" + SPAN + "-0g",
                "00-" + TRACE + "-" + SPAN + "-00-extra", // a later version's length
                "01-" + TRACE + "-" + SPAN + "-00",
                "00_" + TRACE + "-" + SPAN + "-00",
                "00-" + TRACE + "_" + SPAN + "-00",
                "00-" + TRACE + "-" + SPAN + "_00",
                "00-" + TRACE + "-" + SPAN + "-0");
        for (String value : invalid) {
            assertThat(tracing.unsampled(traceparent(value))).as(value).isFalse();
        }
    }

    @Test
    void unsampled_isFalse_whenThePropagatorsDoNotUseTraceparent() {
        var baggageOnly = new KafkaTracing(otel(W3CBaggagePropagator.getInstance()), "test");
        assertThat(baggageOnly.unsampled(traceparent("00-" + TRACE + "-" + SPAN + "-00"))).isFalse();
        assertThat(new KafkaTracing(OpenTelemetry.noop(), "test").unsampled(traceparent("00-" + TRACE + "-" + SPAN + "-00"))).isFalse();
    }

    /** Whatever it reads as unsampled, the propagator extracts as a valid context, not sampled, of the same ids. */
    @Test
    void unsampled_agreesWithThePropagatorsExtraction() {
        var random = new Random(20);
        String alphabet = "0123456789abcdef";
        int unsampled = 0;
        for (int i = 0; i < 2_000; i++) {
            var value = new StringBuilder("00-");
            // mostly valid ids; now and then a character outside lowercase hex, or an id of zeros
            for (int c = 0; c < 48; c++) {
                if (c == 32) {
                    value.append('-');
                }
                int roll = random.nextInt(400);
                value.append(roll == 0 ? 'G' : roll < 40 && i % 7 == 0 ? '0' : alphabet.charAt(random.nextInt(16)));
            }
            value.append('-').append(alphabet.charAt(random.nextInt(16))).append(alphabet.charAt(random.nextInt(16)));
            Headers headers = traceparent(value.toString());

            SpanContext extracted = Span.fromContext(tracing.extract(headers)).getSpanContext();
            boolean expected = extracted.isValid() && !extracted.isSampled();
            assertThat(tracing.unsampled(headers)).as(value.toString()).isEqualTo(expected);
            unsampled += expected ? 1 : 0;
        }
        assertThat(unsampled).as("the cases include unsampled ones").isGreaterThan(500);
    }

    private static Headers traceparent(String value) {
        return new RecordHeaders().add("traceparent", value.getBytes(StandardCharsets.UTF_8));
    }

    private static OpenTelemetry otel(TextMapPropagator propagator) {
        return OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder().build())
                .setPropagators(ContextPropagators.create(propagator)).build();
    }
}
