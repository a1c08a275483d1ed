package dev.tether.approval.domain;

import java.time.Instant;
import java.util.Objects;

/**
 * An approver's decision as asked for, before it is checked against the item.
 *
 * @param decision what is decided, never null
 * @param tool     for GRANT_SESSION: the tool the grant covers; null for the decided call's tool
 * @param pathGlob for GRANT_SESSION: the workspace paths it covers; null for any
 * @param reason   why; required to deny, optional otherwise (null reads as empty)
 * @param seen     the item's {@code requestedAt} as the approver saw it, or null: an item id is a session id and a seq, so a
 *                 session erased and made again under its id may have another call under the id seen
 */
public record DecisionRequest(DecisionKind decision, String tool, String pathGlob, String reason, Instant seen) {

    /** The longest reason accepted, in chars. */
    public static final int MAX_REASON = 2000;

    public DecisionRequest {
        Objects.requireNonNull(decision, "decision");
        reason = reason == null ? "" : reason;
    }

    /** A decision on whatever item has the id now. */
    public DecisionRequest(DecisionKind decision, String tool, String pathGlob, String reason) {
        this(decision, tool, pathGlob, reason, null);
    }
}
