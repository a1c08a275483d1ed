package dev.tether.client;

import java.util.List;

/**
 * The change is in {@code harness-versions} and visible to the session-service that took it.
 *
 * @param versions every version after the change, by name
 */
public record VersionsUpdated(List<HarnessVersion> versions) implements VersionResult {

    public VersionsUpdated {
        versions = List.copyOf(versions);
    }
}
