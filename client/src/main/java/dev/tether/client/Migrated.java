package dev.tether.client;

import java.util.Objects;

/**
 * An operator moved the session to another harness version ({@code session_migrated} is in the
 * log); workers of that version may claim it now.
 *
 * @param sessionId      the session
 * @param harnessVersion the version it is pinned to now
 * @param lastSeq        its last seq after the migration
 */
public record Migrated(String sessionId, String harnessVersion, long lastSeq) implements MigrateResult {

    public Migrated {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(harnessVersion, "harnessVersion");
    }
}
