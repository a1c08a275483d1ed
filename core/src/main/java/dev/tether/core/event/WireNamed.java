package dev.tether.core.event;

import java.util.Locale;

/**
 * An enum whose constants are written in lower case on the wire: JSON and Avro carry {@link #wireName()}
 * ({@code tool_result}), not {@link #name()} ({@code TOOL_RESULT}). For states that were lower-case strings before
 * they were enums; the service kit's JSON mappers write and read it ({@code dev.tether.kit.json.WireNames}), Avro
 * mappers call {@link #wireName()} and {@link #byWireName}.
 */
public interface WireNamed {

    /** The constant's Java name; every enum has it. */
    String name();

    /**
     * The name on the wire: the constant's name in lower case. It never changes once released: a renamed constant
     * overrides this with its old wire name.
     */
    default String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The constant of {@code type} named {@code wireName} on the wire.
     *
     * @throws IllegalArgumentException if no constant has that wire name
     */
    static <E extends Enum<E> & WireNamed> E byWireName(Class<E> type, String wireName) {
        for (E constant : type.getEnumConstants()) {
            if (constant.wireName().equals(wireName)) {
                return constant;
            }
        }
        throw new IllegalArgumentException(type.getSimpleName() + " has no constant named '" + wireName + "' on the wire");
    }
}
