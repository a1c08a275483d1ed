package dev.tether.core.event;

/** Which tool registry a session may use. */
public enum ToolMode { READ_ONLY, WRITE }
