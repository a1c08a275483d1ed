package dev.tether.kit.kafka;

import io.apicurio.registry.serde.avro.DefaultAvroDatumProvider;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.specific.SpecificRecord;

/**
 * Apicurio's datum provider with a cache in front that finds a record's writer and reader by the schema object
 * itself. The default provider finds them by the schema's fingerprint, which it computes on every record by
 * rebuilding the schema's canonical text and hashing it: in the benchmark's profiles that was half of the sequencer's
 * CPU and three quarters of the projector's. The schema objects it is given are the same instances record after
 * record (a generated class's {@code SCHEMA$}, the registry client's cached parse of a schema id), so an identity
 * lookup hits. A new instance (a schema seen for the first time) falls through to the default provider, once.
 *
 * <p>Thread-safe. The caches are bounded: past {@value #MAX_ENTRIES} schema instances they start over.
 */
public final class CachingAvroDatumProvider<T> extends DefaultAvroDatumProvider<T> {

    static final int MAX_ENTRIES = 1_000;

    /** A schema instance, compared by identity; the writer also depends on the kind of record. */
    private record Key(Schema schema, boolean specific) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.schema == schema && k.specific == specific;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(schema) * 31 + (specific ? 1 : 0);
        }
    }

    private final Map<Key, DatumWriter<T>> writers = new ConcurrentHashMap<>();
    private final Map<Key, DatumReader<T>> readers = new ConcurrentHashMap<>();

    @Override
    public DatumWriter<T> createDatumWriter(T data, Schema schema) {
        var key = new Key(schema, data instanceof SpecificRecord);
        DatumWriter<T> writer = writers.get(key);
        if (writer == null) {
            bound(writers);
            writer = writers.computeIfAbsent(key, k -> super.createDatumWriter(data, schema));
        }
        return writer;
    }

    @Override
    public DatumReader<T> createDatumReader(Schema schema) {
        var key = new Key(schema, false);
        DatumReader<T> reader = readers.get(key);
        if (reader == null) {
            bound(readers);
            reader = readers.computeIfAbsent(key, k -> super.createDatumReader(schema));
        }
        return reader;
    }

    private static void bound(Map<?, ?> cache) {
        if (cache.size() >= MAX_ENTRIES) {
            cache.clear();
        }
    }
}
