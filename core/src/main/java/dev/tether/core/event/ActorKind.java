package dev.tether.core.event;

/** Who performed an action. {@link #UNKNOWN} is what an older reader sees of a newer kind; it grants nothing. */
public enum ActorKind { USER, MODEL, TOOL, APPROVER, SYSTEM, UNKNOWN }
