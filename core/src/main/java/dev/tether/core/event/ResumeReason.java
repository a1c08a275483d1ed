package dev.tether.core.event;

/** Why work on a session continued. */
public enum ResumeReason { CRASH, DEPLOY, MANUAL }
