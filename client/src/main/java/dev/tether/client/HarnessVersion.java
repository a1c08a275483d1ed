package dev.tether.client;

import java.util.Objects;
import java.util.Optional;

/**
 * One harness version as operators see it: its share of new sessions, its state, and how many
 * sessions pinned to it are still open (a draining version is done when that reaches 0).
 *
 * @param version      the version's name, e.g. {@code v1}
 * @param weight       the percent of new sessions it takes while ACTIVE, 0–100 (the default version also takes what the
 *                     other versions leave over)
 * @param state        {@code ACTIVE}, {@code DRAINING}, {@code RETIRED}, or {@code UNREGISTERED} for a version
 *                     that open sessions are pinned to but nobody registered
 * @param isDefault    true for the built-in default version nobody has registered yet
 * @param modelId      the model new sessions of this version are pinned to, when the version names one
 * @param openSessions how many sessions pinned to it are open
 * @param share        the percent of new sessions the session-service assigns to it now, 0–100, from every version's weight
 *                     and state (see {@link TetherClient#setWeight})
 */
public record HarnessVersion(String version, int weight, String state, boolean isDefault, Optional<String> modelId, long openSessions,
                             double share) {

    public HarnessVersion {
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(modelId, "modelId");
    }

    /** True when the version takes no new sessions and has none open: it can be switched off. */
    public boolean drained() {
        return !"ACTIVE".equals(state) && openSessions == 0;
    }
}
