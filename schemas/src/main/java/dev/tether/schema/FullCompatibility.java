package dev.tether.schema;

import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.Incompatibility;

/**
 * Checks that a schema is FULL compatible with an earlier one: data written with either can be
 * read with the other. Checking a schema against every released version makes it
 * FULL_TRANSITIVE, the rule {@code session-events} lives by so that old and new services read
 * each other's events during a rolling upgrade.
 *
 * <p>The problems name the schema and the field (as a dotted path through nested records), so a
 * failing build says what to fix, not only that something is wrong. Stateless and thread-safe.
 */
public final class FullCompatibility {

    private FullCompatibility() {}

    /**
     * @param name     the schema's name, for the messages
     * @param current  the schema being checked
     * @param released an earlier released version
     * @param label    the released version's label, e.g. {@code v1}
     * @return one line per incompatibility; empty when FULL compatible
     */
    public static List<String> problems(String name, Schema current, Schema released, String label) {
        var problems = new ArrayList<String>();
        collect(problems, name, current, released,
                "current readers cannot read data written with " + label);
        collect(problems, name, released, current,
                label + " readers cannot read data written with the current schema");
        return problems;
    }

    private static void collect(List<String> into, String name, Schema reader, Schema writer, String direction) {
        var result = SchemaCompatibility.checkReaderWriterCompatibility(reader, writer).getResult();
        for (Incompatibility i : result.getIncompatibilities()) {
            into.add("%s: %s: %s at field '%s' (%s): %s".formatted(
                    name, direction, i.getType(), fieldPath(reader, i.getLocation()), i.getLocation(), i.getMessage()));
        }
    }

    /**
     * Turns the JSON-pointer location Avro reports (e.g. {@code /fields/8/type/fields/1/type/1})
     * into the names of the fields it passes through in the reader schema
     * (e.g. {@code payload.userMessage}).
     */
    static String fieldPath(Schema reader, String location) {
        var names = new ArrayList<String>();
        Schema at = reader;
        String[] tokens = location.split("/");
        for (int t = 0; t < tokens.length && at != null; t++) {
            String token = tokens[t];
            if (token.equals("fields") && t + 1 < tokens.length && at.getType() == Schema.Type.RECORD) {
                var field = at.getFields().get(Integer.parseInt(tokens[++t]));
                names.add(field.name());
                at = field.schema();
            } else if (token.equals("items") && at.getType() == Schema.Type.ARRAY) {
                at = at.getElementType();
            } else if (token.equals("values") && at.getType() == Schema.Type.MAP) {
                at = at.getValueType();
            } else if (isIndex(token) && at.getType() == Schema.Type.UNION) {
                at = at.getTypes().get(Integer.parseInt(token));
            }
        }
        return names.isEmpty() ? "(the record itself)" : String.join(".", names);
    }

    private static boolean isIndex(String token) {
        return !token.isEmpty() && token.chars().allMatch(Character::isDigit);
    }
}
