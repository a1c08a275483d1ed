package dev.tether.core.policy;

import dev.tether.core.event.HarnessTool;
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
 * A malformed entry, two keys for one tenant and mode ({@code "acme.WRITE"} and {@code "acme.write"}, of which either
 * could otherwise win), or a tool name that is not one of the service's tools (a misspelt {@code edit_flie} would
 * otherwise leave {@code edit_file} ungated), stops the start-up with a message naming the key, the name and the
 * tools there are. The tools are passed in by the service (this module cannot see the tool registry).
 *
 * <p>Harness-run tools (docs/ARCHITECTURE.md §6) are named by each session, so they are gated by what they are, per
 * tenant and mode: {@code harness-gated} is {@code mutating} (the default: every tool declared mutating needs an
 * approval), {@code all} or {@code none}; {@code harness-overrides."<tenant>.<MODE>"} replaces it for one tenant's
 * sessions in one mode. A harness tool that has the name of a gated tool is gated too.
 */
public final class GatingPolicy {

    public static final Set<String> DEFAULT_GATED = Set.of("write_file", "edit_file", "run_command", "http_fetch");
    private static final Pattern TOOL = Pattern.compile("[a-z][a-z0-9_.-]{0,63}");

    /** Which harness-run tools need an approval, by what they are. */
    public enum HarnessGate {
        /** Those declared mutating (the default). */
        MUTATING,
        /** Every one. */
        ALL,
        /** None. */
        NONE
    }

    private final Set<String> gated;
    private final Map<String, Set<String>> overrides;
    private final HarnessGate harnessGated;
    private final Map<String, HarnessGate> harnessOverrides;

    private GatingPolicy(Set<String> gated, Map<String, Set<String>> overrides, HarnessGate harnessGated,
                         Map<String, HarnessGate> harnessOverrides) {
        this.gated = Set.copyOf(gated);
        this.overrides = Map.copyOf(overrides);
        this.harnessGated = harnessGated;
        this.harnessOverrides = Map.copyOf(harnessOverrides);
    }

    public static GatingPolicy defaults() {
        return new GatingPolicy(DEFAULT_GATED, Map.of(), HarnessGate.MUTATING, Map.of());
    }

    /** {@link #of(String, Map, Set, String, Map)} with the default gating of harness-run tools: the mutating ones. */
    public static GatingPolicy of(String gated, Map<String, String> overrides, Set<String> knownTools) {
        return of(gated, overrides, knownTools, "mutating", Map.of());
    }

    /**
     * The policy from configuration values, every tool name checked against the tools there are.
     *
     * @param harnessGated     {@code mutating}, {@code all} or {@code none}: which harness-run tools are gated by default
     * @param harnessOverrides {@code "<tenant>.<READ_ONLY|WRITE>"} → one of those three, for that tenant and mode
     * @throws IllegalArgumentException naming the offending entry
     */
    public static GatingPolicy of(String gated, Map<String, String> overrides, Set<String> knownTools, String harnessGated,
                                  Map<String, String> harnessOverrides) {
        GatingPolicy byName = byName(gated, overrides, knownTools);
        var harness = new HashMap<String, HarnessGate>();
        var keys = new HashMap<String, String>();
        harnessOverrides.forEach((key, value) -> harness.put(tenantModeOnce(keys, "tether.policy.harness-overrides", key),
                harnessGate("tether.policy.harness-overrides.\"" + key + "\"", value)));
        return new GatingPolicy(byName.gated, byName.overrides, harnessGate("tether.policy.harness-gated", harnessGated), harness);
    }

    /**
     * Whether a call of harness-run tool {@code tool}, declared by {@code declared} (its entry by name, or the session's
     * {@value HarnessTool#WILDCARD} entry: {@link HarnessTool#find}), in a session of {@code tenantId} in {@code mode}
     * needs an approval: the call's tool is gated by name when it is named like a gated tool, and by what its
     * declaration says it is otherwise.
     */
    public boolean gated(String tenantId, ToolMode mode, String tool, HarnessTool declared) {
        if (gated(tenantId, mode, tool)) {
            return true;
        }
        return switch (harnessOverrides.getOrDefault(tenantId + "." + mode.name(), harnessGated)) {
            case ALL -> true;
            case MUTATING -> declared.mutating();
            case NONE -> false;
        };
    }

    private static HarnessGate harnessGate(String setting, String value) {
        try {
            return HarnessGate.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException(setting + ": '" + value + "' is none of mutating, all, none");
        }
    }

    /**
     * The {@code <tenant>.<MODE>} of {@code key} ({@link #tenantMode}), refused when another key of the setting, kept in
     * {@code seen} by its tenant and mode, names the same.
     */
    private static String tenantModeOnce(Map<String, String> seen, String setting, String key) {
        String tenantMode = tenantMode(setting, key);
        String other = seen.putIfAbsent(tenantMode, key);
        if (other != null) {
            throw new IllegalArgumentException(setting + ".\"" + key + "\" and " + setting + ".\"" + other
                    + "\" name the same tenant and mode; keep one");
        }
        return tenantMode;
    }

    private static String tenantMode(String setting, String key) {
        int dot = key.lastIndexOf('.');
        if (dot <= 0) {
            throw new IllegalArgumentException(setting + ".\"" + key + "\": the key must be <tenant>.<READ_ONLY|WRITE>");
        }
        String mode = key.substring(dot + 1).toUpperCase(Locale.ROOT);
        if (!mode.equals("READ_ONLY") && !mode.equals("WRITE")) {
            throw new IllegalArgumentException(setting + ".\"" + key + "\": unknown tool mode '" + key.substring(dot + 1)
                    + "' (READ_ONLY or WRITE)");
        }
        return key.substring(0, dot) + "." + mode;
    }

    /**
     * The gating by name from configuration values, every tool name checked against the tools there are.
     *
     * @param gated      comma-separated tool names gated by default
     * @param overrides  {@code "<tenant>.<READ_ONLY|WRITE>"} → comma-separated tool names (may be empty: nothing gated)
     * @param knownTools the names of the tools sessions can call, in any mode (the service's tool registry)
     * @throws IllegalArgumentException naming the offending entry
     */
    private static GatingPolicy byName(String gated, Map<String, String> overrides, Set<String> knownTools) {
        Set<String> known = Set.copyOf(knownTools);
        var parsed = new HashMap<String, Set<String>>();
        var keys = new HashMap<String, String>();
        overrides.forEach((key, tools) -> parsed.put(tenantModeOnce(keys, "tether.policy.overrides", key),
                tools("tether.policy.overrides.\"" + key + "\"", tools, known)));
        return new GatingPolicy(tools("tether.policy.gated", gated, known), parsed, HarnessGate.MUTATING, Map.of());
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
