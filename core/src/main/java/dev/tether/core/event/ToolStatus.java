package dev.tether.core.event;

/** Outcome of a tool call. {@link #UNKNOWN}: the effect may or may not have happened; a human decides. */
public enum ToolStatus { OK, ERROR, CANCELLED, UNKNOWN }
