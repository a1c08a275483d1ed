package dev.tether.tools;

import dev.tether.core.event.ToolMode;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/** The tools a session in one {@link ToolMode} may call. Immutable, so thread-safe. */
public final class ToolSet {

    private final ToolMode mode;
    private final Map<String, Tool> tools;

    ToolSet(ToolMode mode, Map<String, Tool> tools) {
        this.mode = Objects.requireNonNull(mode, "mode");
        this.tools = Map.copyOf(tools);
    }

    public ToolMode mode() {
        return mode;
    }

    /**
     * @param name the tool the model called, never null
     * @return the tool, or empty if this set does not have it: the call is refused
     */
    public Optional<Tool> find(String name) {
        return Optional.ofNullable(tools.get(Objects.requireNonNull(name, "name")));
    }

    /** The tools' names, sorted. */
    public Set<String> names() {
        return new TreeSet<>(tools.keySet());
    }

    @Override
    public String toString() {
        return "ToolSet[" + mode + ": " + names() + "]";
    }
}
