package dev.tether.client;

/**
 * A tool the session's harness runs itself, declared when the session starts ({@link NewSession#withHarnessTools}):
 * Tether gives its calls the same approval, fencing, idempotency key and recovery as the tool-executor's, but the
 * harness runs them and reports their results (docs/ARCHITECTURE.md §6, "Harness-run tools"). {@link HarnessToolRunner}
 * runs them.
 *
 * <pre>{@code
 * HarnessTool.mutating("charge_card").reconcilable()   // changes the world; a hook can tell whether an attempt took effect
 * HarnessTool.readOnly("search_docs")
 * HarnessTool.recorded("web_search", false)            // only its result is seen, after the fact: no exactly-once guarantee
 * HarnessTool.recorded(HarnessTool.WILDCARD, false)    // every tool not declared by its name: recorded-only
 * }</pre>
 *
 * <p>The name {@value #WILDCARD} declares every tool the session does not declare by its name, built-in tools included;
 * a declaration by name wins over it. A session declares it at most once, and a READ_ONLY session only as not mutating.
 * A {@link HarnessToolRunner} given a function for {@value #WILDCARD} runs with it every call it has no function of its
 * own for.
 *
 * @param name         the tool's name as its calls name it, or {@value #WILDCARD}; not blank, at most 128 characters
 * @param mutating     it changes something outside the session (gated by default: an approver decides each call)
 * @param canReconcile the harness has a hook that finds out, by the idempotency key, whether an attempt took effect
 * @param recordedOnly the harness reports only its results, without the start step; exclusive with {@code canReconcile}
 */
public record HarnessTool(String name, boolean mutating, boolean canReconcile, boolean recordedOnly) {

    /** The longest name the session-service accepts. */
    public static final int MAX_NAME = 128;
    /** The name that declares every tool not declared by its own name. */
    public static final String WILDCARD = "*";

    public HarnessTool {
        Ids.requireText(name, "name");
        if (name.length() > MAX_NAME) {
            throw new IllegalArgumentException("a harness tool's name is at most " + MAX_NAME + " characters");
        }
        if (recordedOnly && canReconcile) {
            throw new IllegalArgumentException("harness tool '" + name + "': a recorded-only tool has no attempt to reconcile");
        }
    }

    /** A tool that changes something outside the session. */
    public static HarnessTool mutating(String name) {
        return new HarnessTool(name, true, false, false);
    }

    /** A tool that only reads. */
    public static HarnessTool readOnly(String name) {
        return new HarnessTool(name, false, false, false);
    }

    /** The same tool, with a reconciliation hook ({@link ToolReconciler}). */
    public HarnessTool reconcilable() {
        return new HarnessTool(name, mutating, true, recordedOnly);
    }

    /** A recorded-only tool: its results are reported after the fact, with no start step and no exactly-once guarantee. */
    public static HarnessTool recorded(String name, boolean mutating) {
        return new HarnessTool(name, mutating, false, true);
    }
}
