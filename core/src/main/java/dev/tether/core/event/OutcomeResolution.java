package dev.tether.core.event;

/**
 * What a human decided about a tool call whose outcome was reported {@link ToolStatus#UNKNOWN}.
 * {@link #ABANDON} is also how an older reader sees a newer resolution: it never runs anything.
 */
public enum OutcomeResolution {
    /** The effect happened: the call counts as succeeded. */
    MARK_DONE,
    /** Run the call again, under a new idempotency key derived from the resolving event. */
    RETRY,
    /** Give the call up; it is not run again. */
    ABANDON
}
