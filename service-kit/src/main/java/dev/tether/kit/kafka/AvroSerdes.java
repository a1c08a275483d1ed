package dev.tether.kit.kafka;

import io.apicurio.registry.resolver.config.SchemaResolverConfig;
import io.apicurio.registry.serde.avro.AvroKafkaDeserializer;
import io.apicurio.registry.serde.avro.AvroKafkaSerializer;
import io.apicurio.registry.serde.avro.AvroSerdeConfig;
import io.apicurio.registry.serde.config.SerdeConfig;
import io.apicurio.registry.serde.kafka.config.KafkaSerdeConfig;
import java.util.HashMap;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

/**
 * Avro serdes for Tether's topic values, through a real schema registry (Apicurio Registry).
 *
 * <p>They write the Confluent wire format (magic byte 0, the schema's 4-byte content id, then the
 * Avro binary; nothing in headers), so Confluent tooling pointed at the registry's
 * {@code /apis/ccompat/v7} API reads Tether's topics. Schemas are looked up by topic
 * ({@code <topic>-value}); a schema the registry does not have yet is registered, which the
 * subject's compatibility rule (FULL_TRANSITIVE, set by {@link SchemaRegistryInitializer}) may
 * refuse. Values are read back as the generated specific classes.
 */
public final class AvroSerdes {

    /** The registry's Apicurio v3 API base URL, e.g. {@code http://127.0.0.1:8085/apis/registry/v3}. */
    public static final String REGISTRY_URL_CONFIG = SchemaResolverConfig.REGISTRY_URL;

    private AvroSerdes() {}

    /** Serializer/deserializer configs for the registry at {@code registryUrl}. */
    public static Map<String, Object> config(String registryUrl) {
        var config = new HashMap<String, Object>();
        config.put(SchemaResolverConfig.REGISTRY_URL, registryUrl);
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

    /** A configured value serde for a generated Avro class. The caller closes it. */
    public static <T extends SpecificRecord> Serde<T> valueSerde(String registryUrl) {
        var serializer = new AvroKafkaSerializer<T>();
        var deserializer = new AvroKafkaDeserializer<T>();
        Serde<T> serde = Serdes.serdeFrom(serializer, deserializer);
        serde.configure(config(registryUrl), false);
        return serde;
    }
}
