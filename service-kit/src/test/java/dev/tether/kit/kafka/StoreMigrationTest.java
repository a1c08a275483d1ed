package dev.tether.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import org.junit.jupiter.api.Test;

class StoreMigrationTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Test
    void fieldsAdded_givesEachMissingFieldWhatItsAbsenceMeans_keepsThoseThere_andWritingTheOlderVersionDropsThemAll() throws Exception {
        var fields = new LinkedHashMap<String, com.fasterxml.jackson.databind.JsonNode>();
        fields.put("startedAt", NullNode.getInstance());
        fields.put("calls.*.retrySeq", LongNode.valueOf(0));
        StoreMigration step = StoreMigration.fieldsAdded(3, fields);
        var older = (ObjectNode) MAPPER.readTree("{\"id\":\"s\",\"calls\":{\"c1\":{},\"c2\":{\"retrySeq\":7}}}");

        ObjectNode up = step.up().apply(older.deepCopy());

        assertThat(step.from()).isEqualTo(3);
        assertThat(step.description()).isEqualTo("adds startedAt, calls.*.retrySeq");
        assertThat(up.toString()).isEqualTo("{\"id\":\"s\",\"calls\":{\"c1\":{\"retrySeq\":0},\"c2\":{\"retrySeq\":7}},"
                + "\"startedAt\":null}");
        assertThat(step.down().orElseThrow().apply(up).toString()).isEqualTo("{\"id\":\"s\",\"calls\":{\"c1\":{},\"c2\":{}}}");
    }
}
