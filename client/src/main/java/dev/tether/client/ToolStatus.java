package dev.tether.client;

/** How a tool call ended, in its {@code tool_result}. UNKNOWN: the effect may or may not have happened. */
public enum ToolStatus { OK, ERROR, CANCELLED, UNKNOWN }
