package dev.tether.core.event;

import java.util.HashSet;
import java.util.List;

/**
 * A tool the session's harness runs itself, as {@code session_started} (or {@code session_forked}) declares it
 * (docs/ARCHITECTURE.md §6, "Harness-run tools"). Immutable.
 *
 * <p>The name {@value #WILDCARD} declares every tool the same declaration does not name: its properties apply to each
 * call of such a tool, built-in tools included. A declaration by name wins over it, whatever their order, so
 * {@code [{name: "*", recordedOnly: true}, {name: "charge_card", mutating: true}]} has the harness run
 * {@code charge_card} and report every other call after the fact. {@link #runnerOf} and {@link #find} are the one
 * place a call's tool is matched against a declaration.
 *
 * @param name         the tool's name, as a call's {@code tool} names it, or {@value #WILDCARD} for every tool not
 *                     declared by its name; not blank, at most {@value #MAX_NAME} characters
 * @param mutating     it changes something outside the session (false: read-only); a READ_ONLY session declares none
 * @param canReconcile the harness has a hook that finds out, by the idempotency key, whether an attempt took effect
 * @param recordedOnly the harness reports only the call's result, after the fact: no start step, no exactly-once
 *                     guarantee, no approval gate; exclusive with {@code canReconcile}
 */
public record HarnessTool(String name, boolean mutating, boolean canReconcile, boolean recordedOnly) {

    /** Tools a session may declare. */
    public static final int MAX_TOOLS = 64;
    /** The longest tool name. */
    public static final int MAX_NAME = 128;
    /** The name that declares every tool not declared by its own name; at most one entry of a declaration. */
    public static final String WILDCARD = "*";

    public HarnessTool {
        Fields.nonBlank(name, "name");
        if (name.length() > MAX_NAME) {
            throw new InvalidEventException("name", "must be at most " + MAX_NAME + " characters");
        }
        if (recordedOnly && canReconcile) {
            throw new InvalidEventException("canReconcile", "a recordedOnly tool has no attempt to reconcile");
        }
    }

    /** Who runs a call of this tool. */
    public CallRunner runner() {
        return recordedOnly ? CallRunner.RECORDED : CallRunner.HARNESS;
    }

    /** Whether this entry declares every tool not declared by its name ({@value #WILDCARD}). */
    public boolean wildcard() {
        return name.equals(WILDCARD);
    }

    /**
     * {@code tools} checked as a session's declaration: at most {@value #MAX_TOOLS}, each name once (so at most one
     * {@value #WILDCARD}), and none mutating in a READ_ONLY session (a mutating {@value #WILDCARD} neither). Null is an
     * empty declaration.
     *
     * @throws InvalidEventException naming the field, e.g. {@code harnessTools[2].name}
     */
    static List<HarnessTool> declaration(List<HarnessTool> tools, ToolMode mode) {
        List<HarnessTool> list = Fields.list(tools, "harnessTools");
        if (list.size() > MAX_TOOLS) {
            throw new InvalidEventException("harnessTools", "declares " + list.size() + " tools; at most " + MAX_TOOLS);
        }
        var names = new HashSet<String>();
        for (int i = 0; i < list.size(); i++) {
            HarnessTool t = list.get(i);
            if (!names.add(t.name())) {
                throw new InvalidEventException("harnessTools[" + i + "].name", t.wildcard()
                        ? "declares '" + WILDCARD + "' (every tool not declared by its name) twice; at most one entry may"
                        : "declares '" + t.name() + "' twice");
            }
            if (t.mutating() && mode == ToolMode.READ_ONLY) {
                throw new InvalidEventException("harnessTools[" + i + "].mutating",
                        "a READ_ONLY session may not declare a mutating tool ('" + t.name() + "')");
            }
        }
        return list;
    }

    /**
     * Who runs a call of {@code tool} in a session that declared {@code declared}: the runner of its declaration
     * ({@link #find}), the executor when it has none.
     */
    public static CallRunner runnerOf(List<HarnessTool> declared, String tool) {
        HarnessTool t = find(declared, tool);
        return t == null ? CallRunner.EXECUTOR : t.runner();
    }

    /**
     * The entry of {@code declared} that applies to a call of {@code tool}: the one declaring it by name, else the
     * {@value #WILDCARD} entry, else null (the executor runs it). The entry returned is the declaration's own, so a
     * wildcard match has the name {@value #WILDCARD}: who needs the call's tool takes it from the call.
     */
    public static HarnessTool find(List<HarnessTool> declared, String tool) {
        HarnessTool wildcard = null;
        for (HarnessTool t : declared) {
            if (t.name().equals(tool)) {
                return t;
            }
            if (t.wildcard()) {
                wildcard = t;
            }
        }
        return wildcard;
    }
}
