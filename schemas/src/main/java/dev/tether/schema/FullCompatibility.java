package dev.tether.schema;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.Incompatibility;

/**
 * Checks that a schema is FULL compatible with an earlier one: data written with either can be
 * read with the other. Checking a schema against every released version makes it
 * FULL_TRANSITIVE, the rule {@code session-events} lives by so that old and new services read
 * each other's events during a rolling upgrade.
 *
 * <p>Avro's own check compares the types the bytes have, not their logical types: a {@code timestamp-millis} field
 * turned {@code timestamp-micros} is the same {@code long} to it, yet every value written with one reads as a time a
 * thousand times off with the other. So a field whose logical type differs between the two (added, removed or
 * changed) is a problem here too, {@code LOGICAL_TYPE_MISMATCH}.
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
        logicalTypes(problems, name, label, current, released, "", new HashSet<>());
        return problems;
    }

    /**
     * The fields (matched by name, as Avro resolves them) whose logical type differs between {@code current} and
     * {@code released}, through records, arrays, maps and union branches of the same type.
     */
    private static void logicalTypes(List<String> into, String name, String label, Schema current, Schema released, String path,
                                     Set<String> seen) {
        if (!sameLogicalType(current.getLogicalType(), released.getLogicalType())) {
            into.add("%s: the current schema and %s disagree: LOGICAL_TYPE_MISMATCH at field '%s': %s now, %s in %s: the same bytes"
                    .formatted(name, label, path.isEmpty() ? "(the record itself)" : path, logicalName(current), logicalName(released),
                            label) + " would mean different values");
            return;
        }
        if (current.getType() != released.getType()) {
            return; // Avro's check names it, or resolves it (a promotion)
        }
        switch (current.getType()) {
            case RECORD -> {
                if (!seen.add(current.getFullName())) {
                    return; // a recursive record: its fields are being compared already
                }
                for (Schema.Field field : current.getFields()) {
                    Schema.Field old = released.getField(field.name());
                    if (old != null) {
                        logicalTypes(into, name, label, field.schema(), old.schema(), path.isEmpty() ? field.name() : path + "." + field.name(),
                                seen);
                    }
                }
            }
            case ARRAY -> logicalTypes(into, name, label, current.getElementType(), released.getElementType(), path, seen);
            case MAP -> logicalTypes(into, name, label, current.getValueType(), released.getValueType(), path, seen);
            case UNION -> {
                for (Schema branch : current.getTypes()) {
                    for (Schema old : released.getTypes()) {
                        if (branch.getType() == old.getType() && (!isNamed(branch) || branch.getFullName().equals(old.getFullName()))) {
                            logicalTypes(into, name, label, branch, old, path, seen);
                        }
                    }
                }
            }
            default -> { }
        }
    }

    private static boolean sameLogicalType(LogicalType a, LogicalType b) {
        if (a instanceof LogicalTypes.Decimal || b instanceof LogicalTypes.Decimal) {
            return Objects.equals(a, b); // precision and scale too
        }
        return Objects.equals(a == null ? null : a.getName(), b == null ? null : b.getName());
    }

    private static String logicalName(Schema s) {
        return s.getLogicalType() == null ? "no logical type (" + s.getType().getName() + ")" : s.getLogicalType().getName();
    }

    private static boolean isNamed(Schema s) {
        return s.getType() == Schema.Type.RECORD || s.getType() == Schema.Type.ENUM || s.getType() == Schema.Type.FIXED;
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
