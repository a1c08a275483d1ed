package dev.tether.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.avro.HarnessVersion;
import dev.tether.avro.VersionState;
import java.io.ByteArrayOutputStream;
import java.time.Instant;
import org.apache.avro.Schema;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

class CachingAvroDatumProviderTest {

    private final CachingAvroDatumProvider<Object> provider = new CachingAvroDatumProvider<>();

    CachingAvroDatumProviderTest() {
        provider.setUseSpecificAvroReader(true); // as AvroSerdes configures it
    }

    @Test
    void theSameSchemaInstance_getsTheSameWriterAndReader_withoutRecomputingAnything() {
        HarnessVersion version = version();
        assertThat(provider.createDatumWriter(version, HarnessVersion.getClassSchema()))
                .isSameAs(provider.createDatumWriter(version(), HarnessVersion.getClassSchema()));
        assertThat(provider.createDatumReader(HarnessVersion.getClassSchema()))
                .isSameAs(provider.createDatumReader(HarnessVersion.getClassSchema()));
    }

    @Test
    void anEqualSchemaParsedAgain_stillGetsAWorkingWriter_andRecordsRoundTrip() throws Exception {
        Schema parsed = new Schema.Parser().parse(HarnessVersion.getClassSchema().toString());
        var out = new ByteArrayOutputStream();
        var encoder = EncoderFactory.get().binaryEncoder(out, null);
        provider.createDatumWriter(version(), parsed).write(version(), encoder);
        encoder.flush();
        Object read = provider.createDatumReader(parsed).read(null, DecoderFactory.get().binaryDecoder(out.toByteArray(), null));
        assertThat(read).isEqualTo(version());
    }

    @Test
    void theCacheIsBounded() {
        for (int i = 0; i < CachingAvroDatumProvider.MAX_ENTRIES + 10; i++) {
            provider.createDatumReader(new Schema.Parser().parse(HarnessVersion.getClassSchema().toString()));
        }
        // no assertion on internals beyond this: it did not grow without bound or fail
        assertThat(provider.createDatumReader(HarnessVersion.getClassSchema())).isNotNull();
    }

    private static HarnessVersion version() {
        return HarnessVersion.newBuilder().setVersion("v2").setWeight(10).setState(VersionState.ACTIVE).setModelId(null)
                .setUpdatedAt(Instant.parse("2026-11-29T10:00:00Z")).setUpdatedBy("operator").build();
    }
}
