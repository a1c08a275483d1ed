package dev.tether.langchain4j;

/**
 * Another process claimed the memory's session after this store did: Tether fenced this one, and nothing it writes to
 * the memory is appended, neither a message nor a tool's start or result (the memory has one writer). Stop working on
 * the memory here; it is the other process's. To take it back deliberately (the other process is gone, or the memory
 * is to go on here), resume it: {@link TetherTools#resume} claims it anew.
 */
public final class MemoryTakenOverException extends TetherMemoryException {

    private static final long serialVersionUID = 1L;

    private final String sessionId;
    private final long epoch;
    private final long currentEpoch;

    public MemoryTakenOverException(String sessionId, long epoch, long currentEpoch) {
        super("the chat memory of session " + sessionId + " was claimed by another writer (epoch " + currentEpoch + "; this store's was "
                + epoch + "): Tether refused this write, so the memory has one writer; stop working on it here");
        this.sessionId = sessionId;
        this.epoch = epoch;
        this.currentEpoch = currentEpoch;
    }

    public String sessionId() {
        return sessionId;
    }

    /** The epoch this store's claim had. */
    public long epoch() {
        return epoch;
    }

    /** The session's epoch now, another writer's. */
    public long currentEpoch() {
        return currentEpoch;
    }
}
