package dev.tether.projector;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.kit.kafka.SchemaRegistryInitializer;
import dev.tether.schema.ReleasedSchemas;
import dev.tether.testing.TetherStack;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;

/**
 * A client compiled against a released schema (say v1) instead of today's, talking to the real registry as such a
 * client does: it writes with the released schema, registered under the topic's subject, in the Confluent wire
 * format (magic byte 0, the schema's 4-byte id, the Avro binary); it reads any record with the released schema as its
 * reader schema and the writer schema the registry holds for the record's id. Only the schema is old: the code around
 * it is today's test code, not an old build of a service. Not thread-safe.
 */
final class ReleasedSchemaClient {

    private final Schema released;
    private final String ccompatUrl;
    private final SchemaRegistryInitializer registry;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();
    private final Map<Integer, Schema> writers = new HashMap<>();

    /** @param version a released snapshot, e.g. {@code v1}; @param record a top-level record, e.g. {@code SessionEvent} */
    ReleasedSchemaClient(String version, String record) {
        this.released = ReleasedSchemas.of(version, record);
        this.ccompatUrl = TetherStack.shared().ccompatUrl();
        this.registry = new SchemaRegistryInitializer(ccompatUrl, Duration.ofSeconds(30));
    }

    Schema schema() {
        return released;
    }

    /** Registers the released schema under the subject (as the old release did) and returns its id. */
    int register(String subject) {
        return registry.register(subject, released.toString());
    }

    /**
     * The bytes the old release writes for {@code value}: today's record resolved to the released schema (fields added
     * since are left out, as the old release never had them), after the header with {@code schemaId}.
     */
    byte[] write(int schemaId, SpecificRecord value) {
        try {
            var current = new ByteArrayOutputStream();
            var encoder = EncoderFactory.get().binaryEncoder(current, null);
            new SpecificDatumWriter<SpecificRecord>(value.getSchema()).write(value, encoder);
            encoder.flush();
            GenericRecord old = new GenericDatumReader<GenericRecord>(value.getSchema(), released, GenericData.get())
                    .read(null, DecoderFactory.get().binaryDecoder(current.toByteArray(), null));
            var out = new ByteArrayOutputStream();
            out.write(0);
            out.write(ByteBuffer.allocate(4).putInt(schemaId).array());
            var oldEncoder = EncoderFactory.get().binaryEncoder(out, null);
            new GenericDatumWriter<GenericRecord>(released).write(old, oldEncoder);
            oldEncoder.flush();
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The schema id in a record's header. */
    static int schemaId(byte[] bytes) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        if (buffer.get() != 0) {
            throw new IllegalArgumentException("not the Confluent wire format");
        }
        return buffer.getInt();
    }

    /** A record as the old release reads it: its writer schema from the registry, the released schema as reader. */
    GenericRecord read(byte[] bytes) {
        int id = schemaId(bytes);
        Schema writer = writers.computeIfAbsent(id, this::fetch);
        try {
            return new GenericDatumReader<GenericRecord>(writer, released, GenericData.get())
                    .read(null, DecoderFactory.get().binaryDecoder(bytes, 5, bytes.length - 5, null));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Schema fetch(int id) {
        try {
            var response = http.send(HttpRequest.newBuilder(URI.create(ccompatUrl + "/schemas/ids/" + id)).timeout(Duration.ofSeconds(10))
                    .build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("the registry has no schema " + id + ": HTTP " + response.statusCode() + " " + response.body());
            }
            return new Schema.Parser().parse(json.readTree(response.body()).get("schema").asText());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
