package dev.tether.core.event;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The event types by their wire names, e.g. {@code tool_result} → {@link ToolResult}. */
public final class EventTypes {

    private static final Map<String, Class<? extends EventPayload>> BY_WIRE_NAME = index();

    private EventTypes() {}

    /** The payload class of a wire name; empty for a name this version does not know. */
    public static Optional<Class<? extends EventPayload>> byWireName(String type) {
        return Optional.ofNullable(BY_WIRE_NAME.get(type));
    }

    /**
     * Every wire name this version knows, in the order {@link EventPayload} permits them: that of docs/ARCHITECTURE.md §4,
     * but for {@code tool_call_started}, added later, which comes after {@code tool_outcome_resolved}.
     */
    public static Set<String> wireNames() {
        return Collections.unmodifiableSet(BY_WIRE_NAME.keySet());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Class<? extends EventPayload>> index() {
        var index = new LinkedHashMap<String, Class<? extends EventPayload>>();
        for (Class<?> type : EventPayload.class.getPermittedSubclasses()) {
            if (type == UnknownEvent.class) {
                continue;
            }
            try {
                index.put((String) type.getField("TYPE").get(null), (Class<? extends EventPayload>) type);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(type.getName() + " has no public static TYPE wire name");
            }
        }
        return index;
    }
}
