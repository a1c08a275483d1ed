package dev.tether.client;

/**
 * Who an event is attributed to: always the authenticated caller that appended it, whatever its
 * request said.
 *
 * @param kind {@code USER}, {@code MODEL}, {@code TOOL}, {@code APPROVER} or {@code SYSTEM}
 * @param id   the principal, e.g. {@code acme-agent}
 */
public record Actor(String kind, String id) {}
