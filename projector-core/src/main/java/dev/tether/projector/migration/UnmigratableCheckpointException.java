package dev.tether.projector.migration;

/**
 * A stored checkpoint this projector cannot take as its state: older than its migration chain reaches, refused by a
 * step, or written by a newer projector. The message says which versions and what happens or what to do. The
 * projector rebuilds such a checkpoint from the session's events (the log is the state); a reader without the log
 * reports the message.
 */
public final class UnmigratableCheckpointException extends RuntimeException {

    /** Why the checkpoint cannot be migrated. */
    public enum Reason {
        /** Older than the oldest version the chain has a step from. */
        OLDER_THAN_THE_CHAIN,
        /** A step refused it: the change it covers cannot be told from the checkpoint alone. */
        REFUSED_BY_A_STEP,
        /** Written by a newer projector; an older one never reads it. */
        NEWER_THAN_THIS_PROJECTOR
    }

    private final String sessionId;
    private final int storedVersion;
    private final int currentVersion;
    private final Reason reason;

    UnmigratableCheckpointException(String sessionId, int storedVersion, int currentVersion, Reason reason, String detail) {
        super(message(sessionId, storedVersion, currentVersion, reason, detail));
        this.sessionId = sessionId;
        this.storedVersion = storedVersion;
        this.currentVersion = currentVersion;
        this.reason = reason;
    }

    public String sessionId() {
        return sessionId;
    }

    public int storedVersion() {
        return storedVersion;
    }

    /** The version this projector writes. */
    public int currentVersion() {
        return currentVersion;
    }

    public Reason reason() {
        return reason;
    }

    private static String message(String sessionId, int stored, int current, Reason reason, String detail) {
        String rebuilt = "It is rebuilt from the session's events: the projector does so when it folds the session's next event,"
                + " and reads fold the log meanwhile; nothing to do.";
        return switch (reason) {
            case OLDER_THAN_THE_CHAIN -> "the checkpoint of " + sessionId + " has schemaVersion " + stored
                    + ", older than any this projector (schemaVersion " + current + ") migrates (" + detail + "). " + rebuilt;
            case REFUSED_BY_A_STEP -> "the checkpoint of " + sessionId + " has schemaVersion " + stored
                    + " and cannot be migrated to " + current + ": " + detail + ". " + rebuilt;
            case NEWER_THAN_THIS_PROJECTOR -> "the checkpoint of " + sessionId + " has schemaVersion " + stored
                    + ", newer than this projector's " + current + ": a newer projector wrote it and this one does not read it."
                    + " If this instance is a rollback, nothing to do: it rebuilds the checkpoint from the session's events when it"
                    + " folds the session's next event (reads fold the log meanwhile), and the newer projector migrates that one"
                    + " again. Otherwise finish the upgrade: run a projector release that knows schemaVersion " + stored + ".";
        };
    }
}
