package dev.tether.client;

import java.util.List;
import java.util.Objects;

/**
 * The whole batch is in the log, in order (a batch is all or nothing). Events whose eventId was
 * already there — a retry — keep their original seq and are marked {@link AppendedEvent#duplicate()}.
 *
 * @param events     one entry per event of the batch, in the batch's order
 * @param lastSeq    the session's last seq after the append
 * @param redactions how many secrets were scrubbed from the batch before it reached the log
 */
public record Appended(List<AppendedEvent> events, long lastSeq, int redactions) implements AppendResult {

    public Appended {
        events = List.copyOf(events);
    }

    /** The seqs of the batch's events, in the batch's order. */
    public List<Long> seqs() {
        return events.stream().map(AppendedEvent::seq).toList();
    }

    /** True when every event was already in the log: this was a retry of a batch that had gone through. */
    public boolean allDuplicates() {
        return events.stream().allMatch(AppendedEvent::duplicate);
    }

    /**
     * One event of the batch.
     *
     * @param eventId   its id, never null
     * @param seq       its seq in the session
     * @param duplicate true when it was in the log already (a re-sent eventId); nothing was appended for it
     */
    public record AppendedEvent(String eventId, long seq, boolean duplicate) {
        public AppendedEvent {
            Objects.requireNonNull(eventId, "eventId");
        }
    }
}
