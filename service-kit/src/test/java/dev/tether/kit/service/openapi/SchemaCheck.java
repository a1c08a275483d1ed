package dev.tether.kit.service.openapi;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.media.Schema.SchemaType;

/**
 * Checks JSON against the subset of JSON Schema the API's components use (type, enum, properties, required,
 * additionalProperties, items, oneOf with a discriminator, $ref, minimum), on MicroProfile's model as
 * {@link ApiDocument} builds it: so the tests hold the documented schemas to the JSON the code really reads and writes.
 */
final class SchemaCheck {

    private final Map<String, Schema> components;

    SchemaCheck(Map<String, Schema> components) {
        this.components = components;
    }

    Schema resolve(Schema schema) {
        Schema at = schema;
        while (at.getRef() != null) {
            String name = at.getRef().substring("#/components/schemas/".length());
            at = Objects.requireNonNull(components.get(name), "no component " + name);
        }
        return at;
    }

    /** Everything about {@code json} that {@code schema} does not allow; empty when it fits. */
    List<String> problems(JsonNode json, Schema schema) {
        var problems = new ArrayList<String>();
        check(json, schema, "", problems);
        return problems;
    }

    private void check(JsonNode json, Schema given, String at, List<String> problems) {
        Schema schema = resolve(given);
        if (schema.getOneOf() != null) {
            String type = json.path(schema.getDiscriminator().getPropertyName()).asText();
            String ref = schema.getDiscriminator().getMapping().get(type);
            if (ref == null) {
                problems.add(at + ": no member of the oneOf for type " + type);
                return;
            }
            check(json, components.get(ref.substring("#/components/schemas/".length())), at, problems);
            return;
        }
        List<SchemaType> types = schema.getType();
        if (types != null && !types.isEmpty() && types.stream().noneMatch(t -> fits(json, t))) {
            problems.add(at + ": " + json + " is not " + types);
            return;
        }
        if (json.isNull()) {
            return;
        }
        if (schema.getEnumeration() != null && schema.getEnumeration().stream().filter(Objects::nonNull)
                .noneMatch(v -> v.toString().equals(json.asText()))) {
            problems.add(at + ": " + json + " is not one of " + schema.getEnumeration());
        }
        if (schema.getMinimum() != null && json.isNumber() && json.decimalValue().compareTo(schema.getMinimum()) < 0) {
            problems.add(at + ": " + json + " is below " + schema.getMinimum());
        }
        if (json.isObject()) {
            Map<String, Schema> properties = schema.getProperties() == null ? Map.of() : schema.getProperties();
            if (schema.getRequired() != null) {
                schema.getRequired().stream().filter(r -> !json.has(r)).forEach(r -> problems.add(at + "/" + r + ": required, absent"));
            }
            json.fields().forEachRemaining(field -> {
                Schema property = properties.get(field.getKey());
                if (property != null) {
                    check(field.getValue(), property, at + "/" + field.getKey(), problems);
                } else if (schema.getAdditionalPropertiesSchema() != null) {
                    check(field.getValue(), schema.getAdditionalPropertiesSchema(), at + "/" + field.getKey(), problems);
                } else {
                    problems.add(at + "/" + field.getKey() + ": not a documented property");
                }
            });
        }
        if (json.isArray() && schema.getItems() != null) {
            for (int i = 0; i < json.size(); i++) {
                check(json.get(i), schema.getItems(), at + "/" + i, problems);
            }
        }
    }

    private static boolean fits(JsonNode json, SchemaType type) {
        return switch (type) {
            case STRING -> json.isTextual();
            case INTEGER -> json.isIntegralNumber();
            case NUMBER -> json.isNumber();
            case BOOLEAN -> json.isBoolean();
            case ARRAY -> json.isArray();
            case OBJECT -> json.isObject();
            case NULL -> json.isNull();
        };
    }
}
