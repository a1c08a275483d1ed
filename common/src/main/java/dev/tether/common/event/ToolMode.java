package dev.tether.common.event;

/** Which tool registry a session may use. */
public enum ToolMode { READ_ONLY, WRITE }
