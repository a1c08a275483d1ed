package dev.tether.common.event;

/** How far an approval decision reaches: this call only, or this and later matching calls of the session. */
public enum ApprovalScope { ONCE, SESSION }
