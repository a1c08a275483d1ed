package dev.tether.client;

/**
 * A harness's reconciliation hook for a tool declared {@link HarnessTool#canReconcile()}: asked about an attempt that
 * started and has no result (the worker died while it ran), it finds out from the external system, by the attempt's
 * idempotency key, whether the attempt took effect. Only claim {@link Reconciliation#noEffect} when the system proves
 * it: the call then runs again (unless it was started {@link HarnessToolRunner#MAX_STARTS} times: then it ends ERROR).
 *
 * <p>An exception is not an answer: nothing is appended, and {@link HarnessToolRunner#run} throws it (as a
 * {@link HarnessHookException}); run it again later.
 */
@FunctionalInterface
public interface ToolReconciler {

    Reconciliation reconcile(ToolInvocation attempt) throws Exception;
}
