package dev.tether.schema;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;

/**
 * The released schema snapshots ({@code released/<version>/<Record>.avsc}, see {@link ReleaseSnapshot}) as they ship
 * in this jar: what an older service compiled against. Tests use them to write bytes an older service would have
 * written and to read as an older service would.
 */
public final class ReleasedSchemas {

    private ReleasedSchemas() {}

    /**
     * The released schema of a top-level record.
     *
     * @param version the release, e.g. {@code v1}
     * @param record  the record's name, e.g. {@code Checkpoint}
     * @throws IllegalArgumentException if there is no such snapshot
     */
    public static Schema of(String version, String record) {
        String resource = "/released/" + version + "/" + record + ".avsc";
        try (InputStream in = ReleasedSchemas.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no released schema " + resource);
            }
            return new Schema.Parser().parse(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@code record} as a service of release {@code version} would have written it, read by today's schema: encoded
     * with that release's schema (what was added since is dropped: that service never had it), then decoded with the
     * current one (what was added since reads as its default), as Avro resolves a record of an older writer.
     *
     * @throws IllegalArgumentException if the record's schema has no snapshot in that release
     */
    public static <T extends SpecificRecord> T asWrittenBy(String version, T record) {
        Schema current = record.getSchema();
        Schema released = of(version, current.getName());
        try {
            byte[] today = encode(new SpecificDatumWriter<>(current), record);
            GenericRecord then = new GenericDatumReader<GenericRecord>(current, released).read(null,
                    DecoderFactory.get().binaryDecoder(today, null));
            byte[] written = encode(new GenericDatumWriter<>(released), then);
            return new SpecificDatumReader<T>(released, current).read(null, DecoderFactory.get().binaryDecoder(written, null));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static <T> byte[] encode(DatumWriter<T> writer, T datum) throws IOException {
        var out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        writer.write(datum, encoder);
        encoder.flush();
        return out.toByteArray();
    }
}
