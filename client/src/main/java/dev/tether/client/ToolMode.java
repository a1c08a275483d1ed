package dev.tether.client;

/** Which tools a session may use: the read-only registry, or the write registry too. */
public enum ToolMode { READ_ONLY, WRITE }
