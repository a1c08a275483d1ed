package dev.tether.kit.json;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.Module;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.module.SimpleDeserializers;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import dev.tether.core.event.WireNamed;
import java.io.IOException;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Jackson support for {@link WireNamed} enums: each is written as its wire name and read back from it, so a domain
 * enum keeps the wire name its value had as a string without a Jackson annotation in the domain. Every other enum is
 * left to Jackson (its {@code name()}). Registered by {@link EventJson} and {@code StoreFormat}. Thread-safe.
 */
public final class WireNames {

    private WireNames() {}

    /** A new module with the serializer and deserializers. */
    public static Module module() {
        var module = new SimpleModule("tether-wire-names");
        module.addSerializer(WireNamed.class, new StdSerializer<>(WireNamed.class) {
            @Override
            public void serialize(WireNamed value, JsonGenerator out, SerializerProvider provider) throws IOException {
                out.writeString(value.wireName());
            }
        });
        module.setDeserializers(new SimpleDeserializers() {
            @Override
            public JsonDeserializer<?> findEnumDeserializer(Class<?> type, DeserializationConfig config, BeanDescription description) {
                return WireNamed.class.isAssignableFrom(type) ? new ByWireName(type) : null;
            }
        });
        return module;
    }

    private static final class ByWireName extends StdScalarDeserializer<Object> {

        private final Class<?> type;

        ByWireName(Class<?> type) {
            super(type);
            this.type = type;
        }

        @Override
        public Object deserialize(JsonParser in, DeserializationContext context) throws IOException {
            if (in.currentToken() != JsonToken.VALUE_STRING) {
                return context.handleUnexpectedToken(type, in);
            }
            String text = in.getText();
            for (Object constant : type.getEnumConstants()) {
                if (((WireNamed) constant).wireName().equals(text)) {
                    return constant;
                }
            }
            return context.handleWeirdStringValue(type, text, "not one of " + Arrays.stream(type.getEnumConstants())
                    .map(c -> ((WireNamed) c).wireName()).collect(Collectors.joining(", ")));
        }
    }
}
