package dev.tether.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Avro binary with the class's own schema and no registry: what {@code TopologyTestDriver} tests
 * use, since they run without a broker or registry. The topology takes its serdes as arguments,
 * so the code under test is the same.
 */
public final class PlainAvroSerde<T extends SpecificRecord> implements Serde<T>, Serializer<T>, Deserializer<T> {

    private final Schema schema;

    public PlainAvroSerde(Schema schema) {
        this.schema = schema;
    }

    @Override
    public byte[] serialize(String topic, T value) {
        if (value == null) {
            return null;
        }
        try {
            var out = new ByteArrayOutputStream();
            var encoder = EncoderFactory.get().binaryEncoder(out, null);
            new SpecificDatumWriter<T>(schema).write(value, encoder);
            encoder.flush();
            return out.toByteArray();
        } catch (IOException e) {
            throw new SerializationException(e);
        }
    }

    @Override
    public T deserialize(String topic, byte[] data) {
        if (data == null) {
            return null;
        }
        try {
            return new SpecificDatumReader<T>(schema).read(null, DecoderFactory.get().binaryDecoder(data, null));
        } catch (IOException e) {
            throw new SerializationException(e);
        }
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {}

    @Override
    public void close() {}

    @Override
    public Serializer<T> serializer() {
        return this;
    }

    @Override
    public Deserializer<T> deserializer() {
        return this;
    }
}
