package dev.tether.tools;

import java.util.Objects;

/** What {@link Tool#reconcile} found out about a STARTED call whose end is unknown. Immutable values. */
public sealed interface Reconciliation
        permits Reconciliation.Completed, Reconciliation.NotApplied, Reconciliation.Unknown {

    /** The call's effect is proven to have happened: record {@code output} as its result, and do not run it again. */
    record Completed(ToolOutput output) implements Reconciliation {
        public Completed {
            Objects.requireNonNull(output, "output");
        }
    }

    /** The call's effect is proven not to have happened, or running it again is harmless: it is safe to run now. */
    record NotApplied() implements Reconciliation {}

    /**
     * Neither can be proven: the call may have had its effect, in part or in full. A human decides.
     *
     * @param why what could not be proven, for the person deciding; never null
     */
    record Unknown(String why) implements Reconciliation {
        public Unknown {
            Objects.requireNonNull(why, "why");
        }
    }
}
