package dev.tether.core.policy;

import dev.tether.core.event.ToolMode;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which tool calls need a human's approval: a default set of gated tools, and overrides per tenant
 * and tool mode. The approval-service decides with it (the policy decision point); the executor
 * checks it again before it runs anything (the enforcement point). Immutable, thread-safe.
 *
 * <p>Configuration ({@code tether.policy.*}): {@code gated} lists the tools gated by default
 * (write_file, edit_file, run_command, http_fetch); {@code overrides."<tenant>.<MODE>"} replaces
 * that list for one tenant's sessions in one mode, e.g. {@code overrides."acme.READ_ONLY"=http_fetch}.
 * A malformed entry, or a tool name that is not one of the service's tools (a misspelt {@code edit_flie} would
 * otherwise leave {@code edit_file} ungated), stops the start-up with a message naming the key, the name and the
 * tools there are. The tools are passed in by the service (this module cannot see the tool registry).
 */
public final class GatingPolicy {

    public static final Set<String> DEFAULT_GATED = Set.of("write_file", "edit_file", "run_command", "http_fetch");
    private static final Pattern TOOL = Pattern.compile("[a-z][a-z0-9_.-]{0,63}");

    private final Set<String> gated;
    private final Map<String, Set<String>> overrides;

    private GatingPolicy(Set<String> gated, Map<String, Set<String>> overrides) {
        this.gated = Set.copyOf(gated);
        this.overrides = Map.copyOf(overrides);
    }

    public static GatingPolicy defaults() {
        return new GatingPolicy(DEFAULT_GATED, Map.of());
    }

    /**
     * The policy from configuration values, every tool name checked against the tools there are.
     *
     * @param gated      comma-separated tool names gated by default
     * @param overrides  {@code "<tenant>.<READ_ONLY|WRITE>"} → comma-separated tool names (may be empty: nothing gated)
     * @param knownTools the names of the tools sessions can call, in any mode (the service's tool registry)
     * @throws IllegalArgumentException naming the offending entry
     */
    public static GatingPolicy of(String gated, Map<String, String> overrides, Set<String> knownTools) {
        Set<String> known = Set.copyOf(knownTools);
        var parsed = new HashMap<String, Set<String>>();
        overrides.forEach((key, tools) -> {
            int dot = key.lastIndexOf('.');
            if (dot <= 0) {
                throw new IllegalArgumentException("tether.policy.overrides.\"" + key + "\": the key must be <tenant>.<READ_ONLY|WRITE>");
            }
            String mode = key.substring(dot + 1).toUpperCase(Locale.ROOT);
            if (!mode.equals("READ_ONLY") && !mode.equals("WRITE")) {
                throw new IllegalArgumentException("tether.policy.overrides.\"" + key + "\": unknown tool mode '" + key.substring(dot + 1)
                        + "' (READ_ONLY or WRITE)");
            }
            parsed.put(key.substring(0, dot) + "." + mode, tools("tether.policy.overrides.\"" + key + "\"", tools, known));
        });
        return new GatingPolicy(tools("tether.policy.gated", gated, known), parsed);
    }

    /** Whether a call of {@code tool} in a session of {@code tenantId} in {@code mode} needs an approval. */
    public boolean gated(String tenantId, ToolMode mode, String tool) {
        return overrides.getOrDefault(tenantId + "." + mode.name(), gated).contains(tool);
    }

    private static Set<String> tools(String setting, String csv, Set<String> known) {
        if (csv == null || csv.isBlank()) {
            return Set.of();
        }
        var names = new java.util.HashSet<String>();
        for (String raw : List.of(csv.split(","))) {
            String name = raw.trim();
            if (!TOOL.matcher(name).matches()) {
                throw new IllegalArgumentException(setting + ": '" + name + "' is not a tool name (lower-case letters, digits, _ . -)");
            }
            if (!known.contains(name)) {
                throw new IllegalArgumentException(setting + ": '" + name + "' is not a known tool, so it would gate nothing; the tools are "
                        + String.join(", ", new java.util.TreeSet<>(known)));
            }
            names.add(name);
        }
        return names;
    }
}
