package dev.tether.projector.kafka;

import dev.tether.core.event.ApprovalScope;
import dev.tether.core.event.ToolStatus;
import dev.tether.projector.domain.CallRecord;
import java.time.Instant;

/**
 * The values the golden files of the projector's call store hold: a call with every field set (an approval, two
 * attempts, one still open), one as it is first requested. Never change them: the golden files of released encodings
 * are these values as those releases wrote them.
 */
final class StoreSamples {

    private static final Instant T = Instant.parse("2026-11-29T10:00:00Z");

    private StoreSamples() {}

    static CallRecord full() {
        return CallRecord.requested("s-golden", "c1", "edit_file", "{\"path\":\"a.txt\"}", 2)
                .decided(new CallRecord.Approval(3, CallRecord.Approval.Decision.GRANTED, ApprovalScope.SESSION, "alice", "fine", T))
                .authorized(4, "approval at seq 3", "trace-1")
                .attempt(new CallRecord.Attempt(1, "UNKNOWN", "executor-1", T, T.plusSeconds(1)))
                .attempt(new CallRecord.Attempt(2, "STARTED", "executor-2", T.plusSeconds(30), null))
                .finished(5, ToolStatus.UNKNOWN);
    }

    static CallRecord requested() {
        return CallRecord.requested("s-min", "c1", "read_file", "{}", 2);
    }
}
