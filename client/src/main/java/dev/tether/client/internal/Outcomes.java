package dev.tether.client.internal;

import dev.tether.client.AlreadyDecided;
import dev.tether.client.ApiError;
import dev.tether.client.AppendResult;
import dev.tether.client.ClaimResult;
import dev.tether.client.Conflict;
import dev.tether.client.DecisionResult;
import dev.tether.client.Fenced;
import dev.tether.client.NotFound;
import dev.tether.client.Rejected;
import dev.tether.client.TetherException;
import dev.tether.client.VersionPinned;
import java.util.Optional;

/**
 * Error answers mapped to the typed outcomes each call can meet; what is no outcome (401, 5xx, an
 * unexpected status) becomes a {@link TetherException}. Not part of the API. Stateless.
 */
public final class Outcomes {

    public static final String SEQ_CONFLICT = "seq_conflict";
    public static final String STALE_EPOCH = "stale_epoch";
    public static final String VERSION_PINNED = "version_pinned";

    private Outcomes() {}

    /** An append's refusal: {@link Conflict}, {@link Fenced}, {@link NotFound} or {@link Rejected}. */
    public static AppendResult append(ApiError e) {
        if (e.status() == 409 && SEQ_CONFLICT.equals(e.code())) {
            return new Conflict(detail(e, "lastSeq"), e.message());
        }
        if (e.status() == 409 && STALE_EPOCH.equals(e.code())) {
            return new Fenced(detail(e, "epoch"), e.message());
        }
        return e.status() == 404 ? notFound(e) : rejected(e);
    }

    /** A claim's refusal: {@link VersionPinned}, {@link Fenced} (a retried claim that was superseded), {@link NotFound} or {@link Rejected}. */
    public static ClaimResult claim(ApiError e) {
        if (e.status() == 409 && VERSION_PINNED.equals(e.code())) {
            return new VersionPinned(e.message());
        }
        if (e.status() == 409 && STALE_EPOCH.equals(e.code())) {
            return new Fenced(detail(e, "epoch"), e.message());
        }
        return e.status() == 404 ? notFound(e) : rejected(e);
    }

    /** A decision's refusal: {@link AlreadyDecided} (any 409), {@link NotFound} or {@link Rejected}. */
    public static DecisionResult decision(ApiError e) {
        if (e.status() == 409 && e.field().equals(Optional.of("requestedAt"))) {
            return notFound(e); // the item as read is gone: its id names another call now
        }
        if (e.status() == 409) {
            return new AlreadyDecided(e.code(), e.message());
        }
        return e.status() == 404 ? notFound(e) : rejected(e);
    }

    /**
     * For a call that is never repeated (a decision, an erasure): a 502, 503 or 504 is no verdict — a gateway may have
     * passed the request on, and a service answers 503 when the sequencer's verdict did not come in time, the command
     * sent — so the call may have taken effect: a {@link TetherException} whose outcome is unknown. Null for any other
     * status.
     */
    public static TetherException noVerdict(String what, ApiError e) {
        if (e.status() == 502 || e.status() == 503 || e.status() == 504) {
            return new NoVerdict(what + " got no verdict; not repeated, it may or may not have taken effect", e);
        }
        return null;
    }

    /** A service's or a gateway's error answer that is no verdict on a call that is not repeated. */
    private static final class NoVerdict extends TetherException {
        private static final long serialVersionUID = 1L;

        NoVerdict(String message, ApiError error) {
            super(message, error);
        }

        @Override
        public boolean outcomeUnknown() {
            return true;
        }
    }

    public static NotFound notFound(ApiError e) {
        return new NotFound(e.message().isEmpty() ? "not found" : e.message());
    }

    /**
     * A client error as {@link Rejected}: 400, 403, 409, 413, 422 and the other 4xx but 401 and 404.
     *
     * @throws TetherException for 401 (credentials) and anything that is not a 4xx
     */
    public static Rejected rejected(ApiError e) {
        if (e.status() == 401) {
            throw new TetherException("the credentials were refused (check the token)", e);
        }
        if (e.status() < 400 || e.status() >= 500) {
            throw new TetherException("the service failed", e);
        }
        return Rejected.of(e);
    }

    /** For reads, whose only outcome besides the answer is "not found": everything else is thrown. */
    public static TetherException failure(String what, ApiError e) {
        if (e.status() == 401) {
            return new TetherException(what + ": the credentials were refused (check the token)", e);
        }
        return new TetherException(what + " failed", e);
    }

    private static long detail(ApiError e, String name) {
        return e.longDetail(name).orElseThrow(() -> new MalformedAnswerException(e.code() + " without " + name));
    }
}
