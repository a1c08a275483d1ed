package dev.tether.client;

import java.util.Objects;
import java.util.Optional;

/**
 * Which approval items to list: {@code ApprovalFilter.pending()} (oldest first, what an approver
 * works through), {@code ApprovalFilter.all()}, or {@code ApprovalFilter.status(Status.GRANTED)};
 * narrowed with {@link #ofKind}. Immutable.
 */
public final class ApprovalFilter {

    /** An item's status. */
    public enum Status { PENDING, GRANTED, DENIED, EXPIRED, CANCELLED, MARKED_DONE, RETRIED, ABANDONED }

    /** An item's kind. */
    public enum Kind { APPROVAL, UNKNOWN_OUTCOME }

    private final Status status;
    private final Kind kind;

    private ApprovalFilter(Status status, Kind kind) {
        this.status = status;
        this.kind = kind;
    }

    /** The pending items, oldest first. */
    public static ApprovalFilter pending() {
        return new ApprovalFilter(Status.PENDING, null);
    }

    /** Every item, whatever its status. */
    public static ApprovalFilter all() {
        return new ApprovalFilter(null, null);
    }

    /** The items with this status. */
    public static ApprovalFilter status(Status status) {
        return new ApprovalFilter(Objects.requireNonNull(status, "status"), null);
    }

    /** The same filter, narrowed to one kind. */
    public ApprovalFilter ofKind(Kind k) {
        return new ApprovalFilter(status, Objects.requireNonNull(k, "kind"));
    }

    /** The status asked for; empty for any. */
    public Optional<Status> statusFilter() {
        return Optional.ofNullable(status);
    }

    /** The kind asked for; empty for any. */
    public Optional<Kind> kindFilter() {
        return Optional.ofNullable(kind);
    }

    @Override
    public String toString() {
        return "ApprovalFilter[status=" + (status == null ? "ALL" : status) + ", kind=" + (kind == null ? "any" : kind) + "]";
    }
}
