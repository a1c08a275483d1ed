package dev.tether.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

/** Every record, enum and field of the wire format says what it is; every enum says what an unknown symbol reads as. */
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

    /**
     * A reader older than a symbol reads it as the enum's default; an enum without one can never gain a symbol (the
     * compatibility check would refuse it), and an old reader would fail on the record. schemas/README.md: "Enums have a
     * default symbol".
     */
    @Test
    void everyEnum_hasADefaultSymbol() {
        var enums = new ArrayList<Schema>();
        var seen = new HashSet<String>();
        for (Schema s : TetherSchemas.current().values()) {
            walk(s, seen, new ArrayList<>(), enums);
        }
        assertThat(enums).as("enums walked").hasSizeGreaterThan(10);
        assertThat(enums).filteredOn(e -> e.getEnumDefault() == null).extracting(Schema::getFullName)
                .as("enums without a default symbol").isEmpty();
    }

    private static void walk(Schema s, Set<String> seen, List<String> missing) {
        walk(s, seen, missing, new ArrayList<>());
    }

    private static void walk(Schema s, Set<String> seen, List<String> missing, List<Schema> enums) {
        switch (s.getType()) {
            case RECORD -> {
                if (!seen.add(s.getFullName())) return;
                if (blank(s.getDoc())) missing.add(s.getFullName());
                for (Schema.Field f : s.getFields()) {
                    if (blank(f.doc())) missing.add(s.getName() + "." + f.name());
                    walk(f.schema(), seen, missing, enums);
                }
            }
            case ENUM -> {
                if (!seen.add(s.getFullName())) return;
                enums.add(s);
                if (blank(s.getDoc())) missing.add(s.getFullName());
            }
            case UNION -> s.getTypes().forEach(t -> walk(t, seen, missing, enums));
            case ARRAY -> walk(s.getElementType(), seen, missing, enums);
            case MAP -> walk(s.getValueType(), seen, missing, enums);
            default -> { }
        }
    }

    private static boolean blank(String doc) {
        return doc == null || doc.isBlank();
    }
}
