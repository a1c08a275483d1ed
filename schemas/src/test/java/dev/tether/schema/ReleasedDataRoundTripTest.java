package dev.tether.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.util.RandomData;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * What {@link ReleasedSchemasCompatibilityTest} checks on the schemas, checked on data: random records written with every
 * released version are read with today's schema, and random records written today are read with every released version,
 * every byte consumed. {@code SchemaCompatibility} reasons about the schemas; this runs Avro's resolving decoder itself.
 */
class ReleasedDataRoundTripTest {

    private static final int RECORDS = 200;

    @TestFactory
    Stream<DynamicTest> randomRecords_ofEveryReleasedVersion_readToday_andTodaysReadWithEveryReleasedVersion() {
        var tests = new ArrayList<DynamicTest>();
        for (var pair : SchemaResources.releasedPairs()) {
            tests.add(DynamicTest.dynamicTest(pair.name() + " written with " + pair.label() + ", read today",
                    () -> readsEvery(pair.released(), pair.current())));
            tests.add(DynamicTest.dynamicTest(pair.name() + " written today, read with " + pair.label(),
                    () -> readsEvery(pair.current(), pair.released())));
        }
        return tests.stream();
    }

    private static void readsEvery(Schema writer, Schema reader) {
        var reading = new GenericDatumReader<Object>(writer, reader);
        long seed = writer.getFullName().hashCode();
        for (Object datum : new RandomData(writer, RECORDS, seed)) {
            assertThatCode(() -> {
                byte[] bytes = encode(writer, datum);
                BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(bytes, null);
                reading.read(null, decoder);
                assertThat(decoder.isEnd()).as("every byte read").isTrue();
            }).as("%s", datum).doesNotThrowAnyException();
        }
    }

    private static byte[] encode(Schema schema, Object datum) throws IOException {
        var out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<>(schema).write(datum, encoder);
        encoder.flush();
        return out.toByteArray();
    }
}
