package dev.tether.kit.tracing;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * Carries the trace context in Kafka record headers (W3C {@code traceparent}/{@code tracestate},
 * through the configured propagators), so one trace follows a tool call from the REST request
 * through the sequencer, projector, approval-service and executor.
 *
 * <p>Each hop starts its span as a child of the context in the record it consumes
 * ({@link #startSpan}) and writes its own span's context into the records it produces
 * ({@link #inject}); Kafka Streams copies a consumed record's headers to what it forwards, so a
 * processor only replaces the context. Thread-safe.
 */
public final class KafkaTracing {

    private static final TextMapGetter<Headers> GETTER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Headers headers) {
            var keys = new ArrayList<String>();
            headers.forEach(h -> keys.add(h.key()));
            return keys;
        }

        @Override
        public String get(Headers headers, String key) {
            if (headers == null) {
                return null;
            }
            Header header = headers.lastHeader(key);
            return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
        }
    };

    private static final TextMapSetter<Headers> SETTER = (headers, key, value) -> {
        headers.remove(key);
        headers.add(key, value.getBytes(StandardCharsets.UTF_8));
    };

    /** The W3C trace context's header, and the length of its version 00: {@code 00-<trace id>-<span id>-<flags>}. */
    private static final String TRACEPARENT = "traceparent";
    private static final int TRACEPARENT_LENGTH = 55;

    private final OpenTelemetry openTelemetry;
    private final Tracer tracer;
    private final boolean propagatesTraceparent;

    public KafkaTracing(OpenTelemetry openTelemetry, String instrumentationName) {
        this.openTelemetry = openTelemetry;
        this.tracer = openTelemetry.getTracer(instrumentationName);
        this.propagatesTraceparent = openTelemetry.getPropagators().getTextMapPropagator().fields().contains(TRACEPARENT);
    }

    /** The trace context a record carries, or the current context if it carries none. */
    public Context extract(Headers headers) {
        return openTelemetry.getPropagators().getTextMapPropagator().extract(Context.current(), headers, GETTER);
    }

    /** Writes {@code context} into {@code headers}, replacing any trace context they had. */
    public void inject(Context context, Headers headers) {
        openTelemetry.getPropagators().getTextMapPropagator().inject(context, headers, SETTER);
    }

    /** Starts a span that continues the trace of the record with {@code headers}. The caller ends it. */
    public Span startSpan(String name, SpanKind kind, Headers headers) {
        return tracer.spanBuilder(name).setSpanKind(kind).setParent(extract(headers)).startSpan();
    }

    /**
     * Whether the record with {@code headers} continues a trace that is not sampled, read from its {@code traceparent}
     * header alone: a span continuing it would record and export nothing. For a consumer that would start a span per
     * record only to carry the context on, this skips the propagators' extraction, the span and the injection. False
     * when the propagators do not use {@code traceparent}, when the record carries none, or one that is not a valid
     * version-00 header (a span then decides, as {@link #startSpan} does).
     */
    public boolean unsampled(Headers headers) {
        if (!propagatesTraceparent || headers == null) {
            return false;
        }
        Header header = headers.lastHeader(TRACEPARENT);
        byte[] v = header == null ? null : header.value();
        if (v == null || v.length != TRACEPARENT_LENGTH || v[0] != '0' || v[1] != '0' || v[2] != '-' || v[35] != '-' || v[52] != '-'
                || !nonZeroHex(v, 3, 35) || !nonZeroHex(v, 36, 52)) {
            return false;
        }
        int flags = hex(v[53]) << 4 | hex(v[54]);
        return flags >= 0 && (flags & 1) == 0;
    }

    /** Whether {@code v[from..to)} is lowercase hex and not all zeros (W3C: an all-zero trace or span id is invalid). */
    private static boolean nonZeroHex(byte[] v, int from, int to) {
        boolean nonZero = false;
        for (int i = from; i < to; i++) {
            if (hex(v[i]) < 0) {
                return false;
            }
            nonZero |= v[i] != '0';
        }
        return nonZero;
    }

    private static int hex(byte b) {
        if (b >= '0' && b <= '9') {
            return b - '0';
        }
        return b >= 'a' && b <= 'f' ? b - 'a' + 10 : -256;
    }

    /** The header keys the propagators use (e.g. {@code traceparent}). */
    public List<String> headerKeys() {
        return List.copyOf(openTelemetry.getPropagators().getTextMapPropagator().fields());
    }
}
