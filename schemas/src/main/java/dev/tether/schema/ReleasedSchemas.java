package dev.tether.schema;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.apache.avro.Schema;

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
}
