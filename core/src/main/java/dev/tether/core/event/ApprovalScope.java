package dev.tether.core.event;

/** How far an approval decision reaches: this call only, or this and later matching calls of the session. */
public enum ApprovalScope { ONCE, SESSION }
