package dev.tether.kit.service.openapi;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import dev.tether.core.event.Event;
import dev.tether.kit.json.EventJson;
import java.lang.reflect.Field;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.media.Schema.SchemaType;

/**
 * The schemas of the API's JSON, derived from the Java types that read and write it, as {@link EventJson}'s strict
 * mapper sees them (Jackson's own introspection: the same property names, types and enum wire names), so a field added
 * to a record shows in the documents without anyone writing a schema. Which properties are always there is the one
 * thing a type does not say; on a request a primitive property always is (the strict mapper refuses a missing number or
 * boolean); otherwise it comes from, in order:
 * <ul>
 *   <li>a table given with {@link #requiredOnRequest} / {@link #absentFromAnswers} (the event records of {@code core},
 *       which carry no annotation; {@code EventSchemasTest} holds the tables to what {@link EventJson} does);</li>
 *   <li>a documented type's {@link ApiType}: on a request, its {@code required}; on an answer, every property except
 *       those of type {@link Optional} (an answer's documentation record is never serialized: {@code Optional} only
 *       says "may be absent");</li>
 *   <li>otherwise (a domain record answered as it is): its primitive properties only, since a null reference is left
 *       out of the answer.</li>
 * </ul>
 * A property's {@link ApiField} documents it, lists its values, says it may be JSON's null, or names the component of
 * a {@link JsonNode} property (of its items, for a list), e.g. the events of an append. Not thread-safe: one per document.
 */
public final class ApiSchemas {

    /** How the JSON of a type travels. */
    public enum Use {
        /** Sent by a client and read strictly: no other field is accepted. */
        REQUEST,
        /** Answered by {@link EventJson}'s mapper, or built by hand: a null field is left out. */
        ANSWER,
        /** Answered by Quarkus's own mapper: every field is there, a null one as {@code null}. */
        ANSWER_WITH_NULLS
    }

    private static final String PREFIX = "#/components/schemas/";

    private final ObjectMapper mapper = new EventJson().mapper();
    private final Map<String, Schema> components = new TreeMap<>();
    private final Map<String, Object> definedBy = new LinkedHashMap<>();
    private final Map<Class<?>, Set<String>> requiredOnRequest = new LinkedHashMap<>();
    private final Map<Class<?>, Set<String>> absentFromAnswers = new LinkedHashMap<>();
    private final Map<Class<?>, Set<String>> nullableInAnswers = new LinkedHashMap<>();
    private final Map<Class<?>, Map<String, String>> descriptions = new LinkedHashMap<>();
    private final Map<Class<?>, String> names = new LinkedHashMap<>();
    private final Set<String> answers = new java.util.TreeSet<>();

    /** The properties of {@code type} a request must have (for a type with no annotation). */
    public ApiSchemas requiredOnRequest(Class<?> type, Set<String> properties) {
        requiredOnRequest.put(type, Set.copyOf(properties));
        return this;
    }

    /** The properties of {@code type} an answer may leave out (for a type with no annotation); every other one is there. */
    public ApiSchemas absentFromAnswers(Class<?> type, Set<String> properties) {
        absentFromAnswers.put(type, Set.copyOf(properties));
        return this;
    }

    /** The properties of {@code type} an answer may give as JSON's null (for a type with no annotation). */
    public ApiSchemas nullableInAnswers(Class<?> type, Set<String> properties) {
        nullableInAnswers.put(type, Set.copyOf(properties));
        return this;
    }

    /** Documents {@code property} of {@code type} (for a type with no annotation). */
    public ApiSchemas describe(Class<?> type, String property, String description) {
        descriptions.computeIfAbsent(type, t -> new LinkedHashMap<>()).put(property, description);
        return this;
    }

    /** A reference to the component {@code name}. */
    public static Schema ref(String name) {
        return OASFactory.createSchema().ref(PREFIX + name);
    }

    /** Defines the component {@code name} as the JSON of {@code type} in {@code use}, and returns a reference to it. */
    public Schema define(String name, Class<?> type, Use use) {
        names.put(type, name);
        return ref(component(type, use));
    }

    /** Defines the component {@code name} as {@link #define} does, as the answer of an operation: a response of that name too. */
    public Schema answer(String name, Class<?> type, Use use) {
        answers.add(name);
        return define(name, type, use);
    }

    /** Marks the component {@code name}, defined already, as an answer: the document gets a response of that name too. */
    public ApiSchemas answer(String name) {
        if (!components.containsKey(name)) {
            throw new IllegalArgumentException("no component " + name);
        }
        answers.add(name);
        return this;
    }

    /** The components that are answers of an operation, by name; each is also a response of the same name. */
    public Set<String> answers() {
        return answers;
    }

    /** Defines the component {@code name} as {@code schema}, written by hand. */
    public Schema define(String name, Schema schema) {
        put(name, schema, name);
        return ref(name);
    }

    /** The properties and required list of {@code type} in {@code use}, as an object schema not yet named. */
    public Schema object(Class<?> type, Use use) {
        JavaType javaType = mapper.constructType(type);
        BeanDescription description = use == Use.REQUEST ? mapper.getDeserializationConfig().introspect(javaType)
                : mapper.getSerializationConfig().introspect(javaType);
        Schema object = OASFactory.createSchema().addType(SchemaType.OBJECT);
        ApiType annotation = type.getAnnotation(ApiType.class);
        if (annotation != null && !annotation.description().isEmpty()) {
            object.description(annotation.description());
        }
        var required = new ArrayList<String>();
        Set<String> declared = declaredRequired(type, use, annotation);
        for (BeanPropertyDefinition property : description.findProperties()) {
            if (use == Use.REQUEST ? !property.couldDeserialize() : !property.couldSerialize()) {
                continue;
            }
            String name = property.getName();
            JavaType propertyType = property.getPrimaryType();
            var on = annotationOn(type, property.getInternalName());
            Schema typed = on.filter(a -> !a.ref().isEmpty()).map(a -> refOrItems(propertyType, a.ref()))
                    .orElseGet(() -> schemaOf(propertyType, use));
            boolean nullable = use == Use.ANSWER_WITH_NULLS && !propertyType.isPrimitive() || on.map(ApiField::nullable).orElse(false)
                    || use == Use.ANSWER && nullableInAnswers.getOrDefault(type, Set.of()).contains(name);
            Schema schema = nullable ? orNull(typed) : typed;
            on.filter(a -> !a.description().isEmpty()).ifPresent(a -> schema.description(a.description()));
            String described = descriptions.getOrDefault(type, Map.of()).get(name);
            if (described != null) {
                schema.description(described);
            }
            on.filter(a -> a.values().length > 0).ifPresent(a -> schema.enumeration(List.of((Object[]) a.values())));
            object.addProperty(name, schema);
            boolean isRequired = switch (use) {
                // EventJson's mapper refuses a missing number or boolean (FAIL_ON_NULL_FOR_PRIMITIVES) as it refuses a null one
                case REQUEST -> declared != null && declared.contains(name) || propertyType.isPrimitive();
                case ANSWER_WITH_NULLS -> true;
                case ANSWER -> declared != null ? declared.contains(name)
                        : annotation != null ? !Optional.class.isAssignableFrom(propertyType.getRawClass()) : propertyType.isPrimitive();
            };
            if (isRequired) {
                required.add(name);
            }
        }
        if (declared != null && use != Use.ANSWER && !object.getProperties().keySet().containsAll(declared)) {
            throw new IllegalStateException(type.getName() + " has no properties " + declared + " of its required list");
        }
        if (!required.isEmpty()) {
            object.required(required);
        }
        if (use == Use.REQUEST) {
            object.additionalPropertiesBoolean(false);
        }
        return object;
    }

    /** Every component defined so far, by name. */
    public Map<String, Schema> components() {
        return components;
    }

    // ---------------------------------------------------------------------------------------------

    private Set<String> declaredRequired(Class<?> type, Use use, ApiType annotation) {
        if (use == Use.REQUEST) {
            if (requiredOnRequest.containsKey(type)) {
                return requiredOnRequest.get(type);
            }
            return annotation == null ? null : new LinkedHashSet<>(Arrays.asList(annotation.required()));
        }
        if (use == Use.ANSWER && absentFromAnswers.containsKey(type)) {
            var present = new LinkedHashSet<String>();
            JavaType javaType = mapper.constructType(type);
            mapper.getSerializationConfig().introspect(javaType).findProperties().stream().map(BeanPropertyDefinition::getName)
                    .filter(p -> !absentFromAnswers.get(type).contains(p)).forEach(present::add);
            return present;
        }
        return null;
    }

    private static Optional<ApiField> annotationOn(Class<?> type, String field) {
        try {
            Field f = type.getDeclaredField(field);
            return Optional.ofNullable(f.getAnnotation(ApiField.class));
        } catch (NoSuchFieldException e) {
            return Optional.empty();
        }
    }

    private static Schema refOrItems(JavaType type, String ref) {
        if (type.isCollectionLikeType() || type.isArrayType()) {
            return OASFactory.createSchema().addType(SchemaType.ARRAY).items(ref(ref));
        }
        return ref(ref);
    }

    private Schema schemaOf(JavaType type, Use use) {
        Class<?> raw = type.getRawClass();
        if (Optional.class.isAssignableFrom(raw)) {
            return schemaOf(type.containedTypeOrUnknown(0), use);
        }
        if (raw == String.class || raw == char.class || raw == Character.class) {
            return scalar(SchemaType.STRING, null);
        }
        if (raw == Instant.class) {
            return scalar(SchemaType.STRING, "date-time");
        }
        if (raw == boolean.class || raw == Boolean.class) {
            return scalar(SchemaType.BOOLEAN, null);
        }
        if (raw == int.class || raw == Integer.class || raw == short.class || raw == Short.class) {
            return scalar(SchemaType.INTEGER, "int32");
        }
        if (raw == long.class || raw == Long.class) {
            return scalar(SchemaType.INTEGER, "int64");
        }
        if (raw == double.class || raw == Double.class || raw == float.class || raw == Float.class) {
            return scalar(SchemaType.NUMBER, raw == float.class || raw == Float.class ? "float" : "double");
        }
        if (raw.isEnum()) {
            Schema schema = scalar(SchemaType.STRING, null);
            for (Object constant : raw.getEnumConstants()) {
                schema.addEnumeration(mapper.valueToTree(constant).asText());
            }
            return schema;
        }
        if (JsonNode.class.isAssignableFrom(raw) || raw == Object.class) {
            return OASFactory.createSchema().description("any JSON value");
        }
        if (raw == Event.class) {
            return ref(EventSchemas.EVENT);
        }
        if (type.isCollectionLikeType() || type.isArrayType()) {
            return OASFactory.createSchema().addType(SchemaType.ARRAY).items(schemaOf(type.getContentType(), use));
        }
        if (type.isMapLikeType()) {
            return OASFactory.createSchema().addType(SchemaType.OBJECT).additionalPropertiesSchema(schemaOf(type.getContentType(), use));
        }
        if (raw.isPrimitive() || raw.getName().startsWith("java.")) {
            throw new IllegalArgumentException("no schema for " + type + "; add its mapping to ApiSchemas");
        }
        return ref(component(raw, use));
    }

    /** {@code schema}, or JSON's null. */
    private static Schema orNull(Schema schema) {
        if (schema.getRef() == null && schema.getType() != null) {
            if (schema.getEnumeration() != null) {
                schema.addEnumeration(null);
            }
            return schema.addType(SchemaType.NULL);
        }
        return OASFactory.createSchema().oneOf(List.of(schema, OASFactory.createSchema().addType(SchemaType.NULL)));
    }

    private static Schema scalar(SchemaType type, String format) {
        Schema schema = OASFactory.createSchema().addType(type);
        return format == null ? schema : schema.format(format);
    }

    /** The component of {@code type} in {@code use}, defined on first use; its name. */
    private String component(Class<?> type, Use use) {
        String name = nameOf(type, use);
        if (!components.containsKey(name)) {
            components.put(name, OASFactory.createSchema()); // a placeholder while a recursive type is built
            put(name, object(type, use), type.getName() + " " + use);
        }
        return name;
    }

    private void put(String name, Schema schema, Object by) {
        Object before = definedBy.putIfAbsent(name, by);
        if (before != null && !before.equals(by)) {
            throw new IllegalStateException("two schemas named " + name + ": " + before + " and " + by);
        }
        components.put(name, schema);
    }

    private String nameOf(Class<?> type, Use use) {
        String base = names.get(type);
        if (base == null) {
            var parts = new ArrayList<String>();
            for (Class<?> c = type; c != null && (c == type || c.isRecord()); c = c.getEnclosingClass()) {
                parts.add(0, c.getSimpleName()); // RecoveryReport.Call; a holder of records (Answers) is no part of the name
            }
            base = String.join(".", parts);
            if (use == Use.REQUEST) {
                base = base + "Input";
            }
        }
        return base;
    }
}
