package dev.tether.core.event;

/**
 * A constant whose name on the wire is fixed and independent of its Java name: JSON and Avro carry
 * {@link #wireName()} (e.g. {@code tool_result}), never {@link Enum#name()} ({@code TOOL_RESULT}). For enums whose
 * wire names were strings before they were enums; the service kit's JSON mappers write and read it
 * ({@code dev.tether.kit.json.WireNames}), Avro mappers call {@link #wireName()} and {@link #byWireName}.
 */
public interface WireNamed {

    /** The name on the wire; it never changes once released. */
    String wireName();

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
