package dev.tether.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.avro.Checkpoint;
import org.junit.jupiter.api.Test;

class ReleasedSchemasTest {

    @Test
    void theReleasedSnapshots_shipInTheJar_asTheyWereReleased() {
        var v1 = ReleasedSchemas.of("v1", "Checkpoint");

        assertThat(v1.getFullName()).isEqualTo("dev.tether.avro.Checkpoint");
        assertThat(v1.getField("schemaVersion")).isNotNull();
        assertThat(v1.getField("decisions")).as("added after v1").isNull();
        assertThat(Checkpoint.getClassSchema().getField("decisions")).isNotNull();
    }

    @Test
    void anUnknownSnapshot_isRefusedByName() {
        assertThatThrownBy(() -> ReleasedSchemas.of("v0", "Checkpoint"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no released schema /released/v0/Checkpoint.avsc");
    }
}
