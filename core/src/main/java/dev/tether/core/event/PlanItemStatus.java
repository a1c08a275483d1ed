package dev.tether.core.event;

/** Progress of a plan item. */
public enum PlanItemStatus { PENDING, IN_PROGRESS, DONE, CANCELLED }
