package dev.tether.executor.domain;

import dev.tether.core.event.ToolStatus;
import dev.tether.tools.ToolOutput;

/** Where a call stands in the executor's ledger: {@link #STARTED} until it ends, then one of the four ends. */
public enum CallState {
    /** Recorded durably before the tool runs; without an end it is an unknown outcome, reconciled, never re-run. */
    STARTED,
    OK,
    ERROR,
    CANCELLED,
    /** It cannot be proven whether the call took effect: not run again, a human decides. */
    UNKNOWN;

    /** Whether the call has ended: an ended call is only ever reported again. */
    public boolean ended() {
        return this != STARTED;
    }

    /** The status its {@code tool_result} reports; a call without a proven end reports UNKNOWN. */
    public ToolStatus resultStatus() {
        return switch (this) {
            case OK -> ToolStatus.OK;
            case ERROR -> ToolStatus.ERROR;
            case CANCELLED -> ToolStatus.CANCELLED;
            case STARTED, UNKNOWN -> ToolStatus.UNKNOWN;
        };
    }

    /** The end of a call whose tool produced {@code status}. */
    public static CallState of(ToolOutput.Status status) {
        return switch (status) {
            case OK -> OK;
            case ERROR -> ERROR;
            case CANCELLED -> CANCELLED;
        };
    }
}
