package dev.tether.tools;

import dev.tether.core.event.ToolMode;
import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The tools sessions may call, by the session's {@link ToolMode}: {@code registry.forMode(mode).find(name)}. A tool
 * registered READ_ONLY is in both sets; a WRITE tool only in the WRITE set. Built-ins:
 *
 * <ul>
 *   <li>READ_ONLY: {@code read_file}, {@code list_dir}, {@code grep}, {@code http_fetch}
 *   <li>WRITE: those, and {@code write_file}, {@code edit_file}, {@code run_command}
 * </ul>
 *
 * Custom tools are added by the executor's code with {@link Builder#add}; there is no discovery from the classpath
 * (no {@link java.util.ServiceLoader}), so that which tools a session can call is decided in one reviewed place, not
 * by whatever jar is on the classpath.
 *
 * <p>Immutable, so thread-safe.
 */
public final class ToolRegistry {

    private final Map<ToolMode, ToolSet> sets;

    private ToolRegistry(Map<ToolMode, ToolSet> sets) {
        this.sets = sets;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The tools of a Tether deployment: the seven built-ins ({@link Builder#addBuiltIns}), {@code http_fetch} allowing
     * exactly {@code httpAllowedHosts}. The executor runs calls with this registry and the approval-service previews
     * them with it, so the two agree on which tools a mode has and on which URLs are refused.
     *
     * @param httpAllowedHosts the hosts {@code http_fetch} may fetch from (as {@link HttpFetchPolicy#allowing}); empty
     *                         allows none; never null
     */
    public static ToolRegistry builtIn(Collection<String> httpAllowedHosts) {
        return builtIn(HttpFetchPolicy.allowing(httpAllowedHosts));
    }

    /** The same, {@code http_fetch} following {@code httpPolicy}. */
    public static ToolRegistry builtIn(HttpFetchPolicy httpPolicy) {
        return builder().addBuiltIns(httpPolicy).build();
    }

    /** The tools a session in {@code mode} may call. */
    public ToolSet forMode(ToolMode mode) {
        ToolSet set = sets.get(Objects.requireNonNull(mode, "mode"));
        if (set == null) {
            throw new IllegalArgumentException("no tools for mode " + mode);
        }
        return set;
    }

    /** The names of all its tools, of every mode, sorted: what a gating policy may name. */
    public Set<String> names() {
        var names = new TreeSet<String>();
        sets.values().forEach(set -> names.addAll(set.names()));
        return names;
    }

    /** Collects tools. Not thread-safe. */
    public static final class Builder {

        private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]{0,63}");

        private final Map<String, Tool> readOnly = new LinkedHashMap<>();
        private final Map<String, Tool> write = new LinkedHashMap<>();

        private Builder() {}

        /**
         * Adds a tool for sessions in {@code mode} and the modes that include it.
         *
         * @throws IllegalArgumentException if its name is not a tool name or is taken, or a mutating tool is added as
         *     READ_ONLY
         */
        public Builder add(Tool tool, ToolMode mode) {
            Objects.requireNonNull(tool, "tool");
            Objects.requireNonNull(mode, "mode");
            String name = tool.name();
            if (name == null || !NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("tool name must match " + NAME + ", got " + name);
            }
            if (write.containsKey(name)) {
                throw new IllegalArgumentException("a tool named " + name + " is registered already");
            }
            if (mode == ToolMode.READ_ONLY && tool.mutating()) {
                throw new IllegalArgumentException(name + " is mutating, so it cannot be READ_ONLY");
            }
            if (mode == ToolMode.READ_ONLY) {
                readOnly.put(name, tool);
            }
            write.put(name, tool);
            return this;
        }

        /** Adds the seven built-in tools, {@code http_fetch} with {@code httpFetch} as its policy. */
        public Builder addBuiltIns(HttpFetchPolicy httpFetch) {
            return add(new ReadFileTool(), ToolMode.READ_ONLY)
                    .add(new ListDirTool(), ToolMode.READ_ONLY)
                    .add(new GrepTool(), ToolMode.READ_ONLY)
                    .add(new HttpFetchTool(httpFetch), ToolMode.READ_ONLY)
                    .add(new WriteFileTool(), ToolMode.WRITE)
                    .add(new EditFileTool(), ToolMode.WRITE)
                    .add(new RunCommandTool(), ToolMode.WRITE);
        }

        public ToolRegistry build() {
            var sets = new EnumMap<ToolMode, ToolSet>(ToolMode.class);
            sets.put(ToolMode.READ_ONLY, new ToolSet(ToolMode.READ_ONLY, readOnly));
            sets.put(ToolMode.WRITE, new ToolSet(ToolMode.WRITE, write));
            return new ToolRegistry(sets);
        }
    }
}
