package dev.tether.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Instant;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

/**
 * The check itself: it must reject an incompatible change (naming the fields), and accept a
 * real evolution whose bytes both versions can read.
 */
class FullCompatibilityTest {

    private final Schema v1 = SchemaResources.parse("released/v1/HarnessVersion.avsc");
    private final Schema v2 = SchemaResources.parse("evolution/v2/HarnessVersion.avsc");
    private final Schema incompatible = SchemaResources.parse("incompatible/HarnessVersion.avsc");

    @Test
    void rejectsIncompatibleSchema_namingSchemaAndFields() {
        var problems = FullCompatibility.problems("HarnessVersion", incompatible, v1, "v1");

        assertThat(problems).isNotEmpty();
        assertThat(problems).allSatisfy(p -> assertThat(p).startsWith("HarnessVersion: "));
        // the type change breaks both directions, the field without default breaks reading v1 data
        assertThat(problems).anySatisfy(p -> assertThat(p)
                .contains("current readers cannot read data written with v1")
                .contains("field 'weight'")
                .contains("TYPE_MISMATCH"));
        assertThat(problems).anySatisfy(p -> assertThat(p)
                .contains("v1 readers cannot read data written with the current schema")
                .contains("field 'weight'"));
        assertThat(problems).anySatisfy(p -> assertThat(p)
                .contains("field 'region'")
                .contains("READER_FIELD_MISSING_DEFAULT_VALUE"));
    }

    @Test
    void acceptsEvolution_thatAddsFieldWithDefault() {
        assertThat(FullCompatibility.problems("HarnessVersion", v2, v1, "v1")).isEmpty();
    }

    @Test
    void rejectsATimestampChangedFromMillisToMicros_whichAvroCallsCompatible() {
        // the same long either way: every old timestamp would read as a thousand times earlier, and every new one later
        Schema micros = new Schema.Parser().parse(v1.toString().replace("timestamp-millis", "timestamp-micros"));

        var problems = FullCompatibility.problems("HarnessVersion", micros, v1, "v1");

        assertThat(problems).singleElement().asString()
                .startsWith("HarnessVersion: ")
                .contains("field 'updatedAt'")
                .contains("LOGICAL_TYPE_MISMATCH")
                .contains("timestamp-micros")
                .contains("timestamp-millis");
    }

    @Test
    void rejectsALogicalTypeChange_insideAUnionOfANestedRecord() {
        Schema released = new Schema.Parser().parse("""
                {"type": "record", "name": "R", "fields": [{"name": "inner", "type": {"type": "record", "name": "I", "fields": [
                  {"name": "at", "type": ["null", {"type": "long", "logicalType": "timestamp-millis"}], "default": null}]}}]}""");
        Schema current = new Schema.Parser().parse(released.toString().replace("timestamp-millis", "local-timestamp-millis"));

        assertThat(FullCompatibility.problems("R", current, released, "v1")).singleElement().asString()
                .contains("field 'inner.at'")
                .contains("LOGICAL_TYPE_MISMATCH");
        assertThat(FullCompatibility.problems("R", released, released, "v1")).isEmpty();
    }

    @Test
    void namesNestedFields_throughRecordsAndUnions() {
        Schema event = TetherSchemas.current().get("SessionEvent");
        int payload = event.getField("payload").pos();
        Schema payloadSchema = event.getField("payload").schema();
        int userMessage = payloadSchema.getField("userMessage").pos();

        String path = FullCompatibility.fieldPath(event,
                "/fields/%d/type/fields/%d/type/1/fields/0".formatted(payload, userMessage));

        assertThat(path).isEqualTo("payload.userMessage.content");
    }

    @Test
    void v1Bytes_readWithV2_getTheDefault() throws IOException {
        GenericRecord written = harnessVersion(v1);

        GenericRecord read = decode(encode(written, v1), v1, v2);

        assertThat(read.get("version")).hasToString("v1");
        assertThat(read.get("weight")).isEqualTo(90);
        assertThat(read.get("maxOpenSessions")).isEqualTo(0);
    }

    @Test
    void v2Bytes_readWithV1_skipTheNewField() throws IOException {
        GenericRecord written = harnessVersion(v2);
        written.put("maxOpenSessions", 50);

        GenericRecord read = decode(encode(written, v2), v2, v1);

        assertThat(read.getSchema().getField("maxOpenSessions")).isNull();
        assertThat(read.get("version")).hasToString("v1");
        assertThat(read.get("weight")).isEqualTo(90);
        assertThat(read.get("state")).hasToString("ACTIVE");
        assertThat(read.get("updatedBy")).hasToString("ops@acme");
    }

    private static GenericRecord harnessVersion(Schema schema) {
        var r = new GenericData.Record(schema);
        r.put("version", "v1");
        r.put("weight", 90);
        r.put("state", new GenericData.EnumSymbol(schema.getField("state").schema(), "ACTIVE"));
        r.put("modelId", null);
        r.put("updatedAt", Instant.parse("2026-11-01T10:00:00Z").toEpochMilli());
        r.put("updatedBy", "ops@acme");
        return r;
    }

    private static byte[] encode(GenericRecord record, Schema writer) throws IOException {
        var out = new ByteArrayOutputStream();
        var encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(writer).write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    private static GenericRecord decode(byte[] bytes, Schema writer, Schema reader) throws IOException {
        return new GenericDatumReader<GenericRecord>(writer, reader)
                .read(null, DecoderFactory.get().binaryDecoder(bytes, null));
    }
}
