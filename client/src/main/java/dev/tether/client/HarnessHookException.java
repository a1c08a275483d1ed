package dev.tether.client;

/**
 * A {@link ToolReconciler} threw: nothing was appended for the call, which stays started with no result (unknown in
 * the recovery report). Running {@link HarnessToolRunner#run} again asks the hook again.
 */
public final class HarnessHookException extends RuntimeException {

    private final String callId;

    public HarnessHookException(String callId, Throwable cause) {
        super("the reconciliation hook of call " + callId + " failed: " + cause, cause);
        this.callId = callId;
    }

    public String callId() {
        return callId;
    }
}
