package dev.tether.bench;

import dev.tether.avro.SessionEvent;
import dev.tether.kit.kafka.AvroSerdes;
import dev.tether.kit.kafka.SessionEventKeySerde;
import dev.tether.testing.Trees;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.URL;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Kafka Streams' own ceiling beside the projector's figure 4: {@code session-events} read by a Kafka Streams application
 * in this JVM whose processor does nothing, with the Streams settings every Tether service starts with (service-kit's
 * {@code kafka-streams.*} defaults: exactly-once, a commit every 100 ms, no task idling). Two twins: {@link Twin#BYTES}
 * hands the processor the record's bytes; {@link Twin#DECODED} decodes each key and value first, as the projector's
 * source does (the key serde, and the Avro value through the registry). So the gap between raw consume and the
 * projection splits into what Kafka Streams costs per record, what decoding an event costs, and what the projector
 * does with it.
 */
final class StreamsCeiling {

    /** What the twin's source does with a record before its processor drops it. */
    enum Twin { BYTES, DECODED }

    /**
     * @param twin                       which twin
     * @param records                    the records its processor was handed
     * @param seconds                    from the first record its processor was handed to the last
     * @param eventsPerSec               records per second over those seconds
     * @param startupMs                  from the call to the first record: the start, the group's join
     * @param streamThreadMicrosPerEvent the CPU of its stream thread from its start to the last record, per record
     */
    record Run(Twin twin, long records, double seconds, double eventsPerSec, double startupMs, double streamThreadMicrosPerEvent) {}

    private static final String SERVICE_DEFAULTS = "META-INF/microprofile-config.properties";
    private static final String STREAMS_PREFIX = "kafka-streams.";

    private final String bootstrap;
    private final String registryUrl;
    private final Path stateDirs;

    StreamsCeiling(String bootstrap, String registryUrl, Path stateDirs) {
        this.bootstrap = bootstrap;
        this.registryUrl = registryUrl;
        this.stateDirs = stateDirs;
    }

    /**
     * Runs {@code twin} over {@code topic}, which holds {@code records} records, until its processor has been handed
     * every one. Its processor times itself, so a topic small enough to be read in one poll is measured too.
     */
    Run run(Twin twin, String topic, long records) throws Exception {
        String appId = "bench-streams-" + twin.name().toLowerCase(Locale.ROOT) + "-" + System.nanoTime();
        Path stateDir = stateDirs.resolve(appId);
        Properties props = serviceStreamsDefaults();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1); // as the projector runs
        props.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");

        var clock = new Clock(records);
        Serde<SessionEvent> values = twin == Twin.DECODED ? AvroSerdes.valueSerde(registryUrl) : null;
        var topology = new Topology();
        if (twin == Twin.DECODED) {
            topology.addSource("source", new SessionEventKeySerde(), values.deserializer(), topic);
        } else {
            topology.addSource("source", Serdes.ByteArray().deserializer(), Serdes.ByteArray().deserializer(), topic);
        }
        topology.addProcessor("drop", () -> new Processor<Object, Object, Void, Void>() {
            @Override
            public void process(Record<Object, Object> record) {
                clock.handed();
            }
        }, "source");

        long called = System.nanoTime();
        var streams = new KafkaStreams(topology, props);
        try {
            streams.start();
            if (!clock.all.await(10, TimeUnit.MINUTES)) {
                throw new IllegalStateException("Kafka Streams (" + twin + ") was handed " + clock.count + " of the " + records
                        + " records of " + topic + " in 10 minutes");
            }
            double seconds = (clock.last - clock.first) / 1e9;
            return new Run(twin, records, seconds, (records - 1) / seconds, (clock.first - called) / 1e6,
                    streamThreadNanos(appId) / 1e3 / records);
        } finally {
            streams.close(Duration.ofSeconds(30));
            if (values != null) {
                values.close();
            }
            Trees.delete(stateDir);
        }
    }

    /** When the stream thread was handed its first record and its last: written by that thread alone. */
    private static final class Clock {
        final CountDownLatch all = new CountDownLatch(1);
        final long expected;
        volatile long first;
        volatile long last;
        volatile long count;

        Clock(long expected) {
            this.expected = expected;
        }

        void handed() {
            long now = System.nanoTime();
            if (count == 0) {
                first = now;
            }
            count++;
            if (count == expected) {
                last = now;
                all.countDown();
            }
        }
    }

    /** The CPU time of the live stream threads of application {@code appId} in this JVM. */
    private static long streamThreadNanos(String appId) {
        var threads = ManagementFactory.getThreadMXBean();
        long nanos = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith(appId) && t.getName().contains("-StreamThread-")) {
                nanos += Math.max(0, threads.getThreadCpuTime(t.getId()));
            }
        }
        return nanos;
    }

    /** service-kit's {@code kafka-streams.*} defaults, those that name no other setting ({@code ${…}}). */
    private static Properties serviceStreamsDefaults() {
        var defaults = new Properties();
        // service-kit's own file: other jars on the classpath have one of the same name
        URL kit = AvroSerdes.class.getProtectionDomain().getCodeSource().getLocation();
        URI file = kit.getPath().endsWith(".jar") ? URI.create("jar:" + kit + "!/" + SERVICE_DEFAULTS)
                : URI.create(kit.toString()).resolve(SERVICE_DEFAULTS);
        try (InputStream in = file.toURL().openStream()) {
            defaults.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        var props = new Properties();
        for (String name : defaults.stringPropertyNames()) {
            String value = defaults.getProperty(name);
            if (name.startsWith(STREAMS_PREFIX) && !value.contains("${")) {
                props.put(name.substring(STREAMS_PREFIX.length()), value);
            }
        }
        return props;
    }
}
