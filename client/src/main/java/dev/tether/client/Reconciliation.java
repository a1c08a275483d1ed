package dev.tether.client;

import java.util.Objects;

/**
 * What a {@link ToolReconciler} found about an attempt that started and has no result: it {@link TookEffect} (its
 * outcome becomes the call's {@code tool_result}), it provably had {@link NoEffect} (the runner writes
 * {@code tool_outcome_resolved RETRY} and runs the call once more, under a new key; or, once the call was started
 * {@link HarnessToolRunner#MAX_STARTS} times, ends it {@code tool_result ERROR}), or the hook {@link CannotTell}
 * (the call ends {@code tool_result UNKNOWN} for a person to mark done, retry or abandon).
 */
public sealed interface Reconciliation permits Reconciliation.TookEffect, Reconciliation.NoEffect, Reconciliation.CannotTell {

    /** @param output the attempt's outcome, OK or ERROR, as the external system recorded it */
    record TookEffect(ToolOutput output) implements Reconciliation {
        public TookEffect {
            if (output.status() != ToolStatus.OK && output.status() != ToolStatus.ERROR) {
                throw new IllegalArgumentException("an attempt that took effect ended OK or ERROR, not " + output.status());
            }
        }
    }

    /** @param reason why the hook is sure (recorded in the RETRY) */
    record NoEffect(String reason) implements Reconciliation {
        public NoEffect {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /** @param reason why it cannot tell (the UNKNOWN result's content) */
    record CannotTell(String reason) implements Reconciliation {
        public CannotTell {
            Objects.requireNonNull(reason, "reason");
        }
    }

    static Reconciliation tookEffect(ToolOutput output) {
        return new TookEffect(output);
    }

    static Reconciliation noEffect(String reason) {
        return new NoEffect(reason);
    }

    static Reconciliation cannotTell(String reason) {
        return new CannotTell(reason);
    }
}
