package dev.tether.core.event;

/** {@code session_migrated}: An operator moved the session to another harness version. Written only by the sequencer. */
public record SessionMigrated(String fromVersion, String toVersion) implements EventPayload {

    public static final String TYPE = "session_migrated";

    public SessionMigrated {
        Fields.nonBlank(fromVersion, "fromVersion");
        Fields.nonBlank(toVersion, "toVersion");
    }

    @Override
    public String type() {
        return TYPE;
    }
}
