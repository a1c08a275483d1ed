package dev.tether.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

/** Every record, enum and field of the wire format says what it is. */
class SchemaDocumentationTest {

    @Test
    void everyNamedTypeAndField_hasDoc() {
        var missing = new ArrayList<String>();
        var seen = new HashSet<String>();
        for (Schema s : TetherSchemas.current().values()) {
            walk(s, seen, missing);
        }
        assertThat(missing).as("schema elements without a doc").isEmpty();
        assertThat(seen).as("named types walked").hasSizeGreaterThan(40);
    }

    private static void walk(Schema s, Set<String> seen, List<String> missing) {
        switch (s.getType()) {
            case RECORD -> {
                if (!seen.add(s.getFullName())) return;
                if (blank(s.getDoc())) missing.add(s.getFullName());
                for (Schema.Field f : s.getFields()) {
                    if (blank(f.doc())) missing.add(s.getName() + "." + f.name());
                    walk(f.schema(), seen, missing);
                }
            }
            case ENUM -> {
                if (seen.add(s.getFullName()) && blank(s.getDoc())) missing.add(s.getFullName());
            }
            case UNION -> s.getTypes().forEach(t -> walk(t, seen, missing));
            case ARRAY -> walk(s.getElementType(), seen, missing);
            case MAP -> walk(s.getValueType(), seen, missing);
            default -> { }
        }
    }

    private static boolean blank(String doc) {
        return doc == null || doc.isBlank();
    }
}
