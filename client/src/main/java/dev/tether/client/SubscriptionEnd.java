package dev.tether.client;

import java.util.Objects;
import java.util.Optional;

/**
 * Why a subscription ended.
 *
 * @param reason  {@link Reason#CLOSED} (the caller closed it, or the client was closed), {@link Reason#NOT_FOUND}
 *                (the session does not exist for the caller, or was erased), or {@link Reason#FAILED}
 * @param failure for FAILED: what went wrong (credentials refused, the listener threw, an answer the client
 *                cannot read); empty otherwise
 * @param lastSeq the last seq delivered
 */
public record SubscriptionEnd(Reason reason, Optional<RuntimeException> failure, long lastSeq) {

    /** Why a subscription ended. */
    public enum Reason { CLOSED, NOT_FOUND, FAILED }

    public SubscriptionEnd {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(failure, "failure");
    }
}
