package dev.tether.kit.kafka;

import io.apicurio.registry.resolver.config.SchemaResolverConfig;
import io.apicurio.registry.serde.avro.AvroKafkaDeserializer;
import io.apicurio.registry.serde.avro.AvroKafkaSerializer;
import io.apicurio.registry.serde.avro.AvroSerdeConfig;
import io.apicurio.registry.serde.config.SerdeConfig;
import io.apicurio.registry.serde.kafka.config.KafkaSerdeConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Avro serdes for Tether's topic values, through a real schema registry (Apicurio Registry).
 *
 * <p>They write the Confluent wire format (magic byte 0, the schema's 4-byte content id, then the
 * Avro binary; nothing in headers), so Confluent tooling pointed at the registry's
 * {@code /apis/ccompat/v7} API reads Tether's topics. Schemas are looked up by topic
 * ({@code <topic>-value}); a schema the registry does not have yet is registered, which the
 * subject's compatibility rule (FULL_TRANSITIVE, set by {@link SchemaRegistryInitializer}) may
 * refuse. Values are read back as the generated specific classes.
 *
 * <p>Every registry call has a deadline ({@link RegistrySettings}) and goes through a {@link RegistryConnection}, never
 * the serde's default client (which has none). What a serde looked up it keeps for good: a schema id names immutable
 * content, so nothing is asked again once known, and a registry outage only matters to a schema id not seen yet. Such a
 * lookup fails with {@link RegistryUnavailableException} after {@link RegistrySettings#lookupDeadline()}.
 *
 * <p>The deserializers read the payload alone, never the record's headers: see {@link PayloadOnly}.
 */
public final class AvroSerdes {

    /** The registry's Apicurio v3 API base URL, e.g. {@code http://127.0.0.1:8085/apis/registry/v3}. */
    public static final String REGISTRY_URL_CONFIG = SchemaResolverConfig.REGISTRY_URL;

    private AvroSerdes() {}

    /**
     * How long a looked-up schema stays cached: for good. The resolver's default (30 s) would ask the registry again
     * for every schema every 30 s, making every serde depend on the registry all the time instead of once per id.
     */
    static final long CACHE_LIFETIME_MS = Duration.ofDays(365L * 100).toMillis();

    /** Serializer/deserializer configs for the registry at {@code registryUrl}. */
    public static Map<String, Object> config(String registryUrl) {
        var config = new HashMap<String, Object>();
        config.put(SchemaResolverConfig.REGISTRY_URL, registryUrl);
        config.put(SchemaResolverConfig.CHECK_PERIOD_MS, CACHE_LIFETIME_MS);
        // should an entry ever expire, a failed refresh keeps the schema known instead of failing the record
        config.put(SchemaResolverConfig.FAULT_TOLERANT_REFRESH, true);
        config.put(SchemaResolverConfig.RETRY_COUNT, (long) RegistrySettings.LOOKUP_ATTEMPTS - 1);
        config.put(SchemaResolverConfig.RETRY_BACKOFF_MS, RegistrySettings.LOOKUP_BACKOFF.toMillis());
        config.put(SchemaResolverConfig.AUTO_REGISTER_ARTIFACT, true);
        // one self-contained schema per subject, as Confluent clients expect, not one artifact per nested record
        config.put(SchemaResolverConfig.DEREFERENCE_SCHEMA, true);
        config.put(SerdeConfig.USE_ID, "contentId"); // the id Confluent-compatible clients know
        config.put(KafkaSerdeConfig.ENABLE_HEADERS, false); // the id travels in the payload
        config.put(AvroSerdeConfig.USE_SPECIFIC_AVRO_READER, true);
        // writers and readers found by schema identity, not by a fingerprint computed per record
        config.put(AvroSerdeConfig.AVRO_DATUM_PROVIDER, CachingAvroDatumProvider.class.getName());
        return config;
    }

    /**
     * A configured value serde for a generated Avro class, through {@code registry} (shared; the caller closes the
     * serde, and the connection after its last serde).
     */
    public static <T extends SpecificRecord> Serde<T> valueSerde(RegistryConnection registry) {
        var serializer = new AvroKafkaSerializer<T>(registry.facade());
        var deserializer = new PayloadOnly<>(new AvroKafkaDeserializer<T>(registry.facade()));
        Serde<T> serde = Serdes.serdeFrom(serializer, deserializer);
        serde.configure(config(registry.settings().url()), false);
        return serde;
    }

    /** A value serde with a connection of its own to the registry of {@code settings}, closed with the serde. The caller closes it. */
    public static <T extends SpecificRecord> Serde<T> valueSerde(RegistrySettings settings) {
        RegistryConnection own = RegistryConnection.open(settings);
        Serde<T> serde = valueSerde(own);
        return new OwningSerde<>(serde, own);
    }

    /**
     * {@link #valueSerde(RegistrySettings)} with the deadlines of a caller that does not try again
     * ({@link RegistrySettings#patient}): for tests, benchmarks and tools. The caller closes it.
     */
    public static <T extends SpecificRecord> Serde<T> valueSerde(String registryUrl) {
        return valueSerde(RegistrySettings.patient(registryUrl));
    }

    /**
     * {@code deserializer}, waiting (and asking again every second) while the registry does not answer, at most
     * {@code maxWait} per record, instead of failing at once: for a thread that may wait, such as a global store's.
     * Kafka Streams cannot replace a failed global thread (a failure there stops the whole client), and that thread is
     * in no consumer group, so waiting costs it nothing but time.
     */
    public static <T> Deserializer<T> waitingForRegistry(Deserializer<T> deserializer, Duration maxWait) {
        return new Deserializer<>() {
            @Override
            public void configure(Map<String, ?> configs, boolean isKey) {
                deserializer.configure(configs, isKey);
            }

            @Override
            public T deserialize(String topic, byte[] data) {
                return waiting(() -> deserializer.deserialize(topic, data));
            }

            @Override
            public T deserialize(String topic, Headers headers, byte[] data) {
                return waiting(() -> deserializer.deserialize(topic, headers, data));
            }

            private T waiting(java.util.function.Supplier<T> read) {
                long deadline = System.nanoTime() + maxWait.toNanos();
                while (true) {
                    try {
                        return read.get();
                    } catch (RuntimeException e) {
                        if (RegistryUnavailableException.in(e).isEmpty() || System.nanoTime() > deadline) {
                            throw e;
                        }
                    }
                    try {
                        Thread.sleep(1_000);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new RegistryUnavailableException("(unknown)", "was waited for until interrupted", e);
                    }
                }
            }

            @Override
            public void close() {
                deserializer.close();
            }
        };
    }

    /**
     * Apicurio's deserializer, shown no record headers. Given headers, {@code AvroKafkaDeserializer} looks for an
     * {@code apicurio.value.encoding} header in every record (a scan of the headers, and the decoding of their keys, per
     * record: 6 % of the projector's stream-thread samples, bench/README.md "Where the time goes"), and one it finds
     * switches the deserializer to that encoding for every later record too. Tether writes no such header (headers are
     * disabled and the schema id travels in the payload), so the payload alone decides, as
     * {@code deserialize(topic, data)} reads it: magic byte 0, the content id, Avro binary.
     */
    private record PayloadOnly<T>(Deserializer<T> deserializer) implements Deserializer<T> {
        @Override
        public void configure(Map<String, ?> configs, boolean isKey) {
            deserializer.configure(configs, isKey);
        }

        @Override
        public T deserialize(String topic, byte[] data) {
            return deserializer.deserialize(topic, data);
        }

        @Override
        public T deserialize(String topic, Headers headers, byte[] data) {
            return deserializer.deserialize(topic, data);
        }

        @Override
        public void close() {
            deserializer.close();
        }
    }

    /** A serde that closes its registry connection when it is closed. */
    private record OwningSerde<T>(Serde<T> serde, RegistryConnection connection) implements Serde<T> {
        @Override
        public Serializer<T> serializer() {
            return serde.serializer();
        }

        @Override
        public Deserializer<T> deserializer() {
            return serde.deserializer();
        }

        @Override
        public void close() {
            try {
                serde.close();
            } finally {
                connection.close();
            }
        }
    }
}
