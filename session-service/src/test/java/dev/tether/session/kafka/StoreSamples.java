package dev.tether.session.kafka;

import dev.tether.core.event.CallRunner;
import dev.tether.core.event.ResumeReason;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolMode;
import dev.tether.session.domain.SessionHead;
import dev.tether.session.domain.SessionSummary;
import java.time.Instant;
import java.util.Map;

/**
 * The values the golden files of the sequencer's stores hold: one with every field set (and every kind of open call),
 * one as small as a value gets (nulls, nothing open). Never change them: the golden files of released encodings are
 * these values as those releases wrote them.
 */
final class StoreSamples {

    private StoreSamples() {}

    static SessionHead fullHead() {
        return fullHead(11, Instant.parse("2026-12-04T10:00:00.123Z"), Instant.parse("2026-12-04T09:58:00.456Z"), "agent-1",
                Instant.parse("2026-12-04T10:07:30.789Z"));
    }

    /**
     * The full head with another {@code lastInterruptSeq}, starts, askers and last event's time: how versions 0 and 1 (no
     * {@code lastInterruptSeq}), versions before 4 (no {@code startedAt}, {@code parentStartedAt}) and versions before 5 (no
     * open call's {@code requestedBy}, no {@code lastEventAt}) read.
     */
    static SessionHead fullHead(long lastInterruptSeq, Instant startedAt, Instant parentStartedAt, String requestedBy,
                                Instant lastEventAt) {
        return new SessionHead("s-golden", "acme", "agent-1", 12, 3, "worker-2", "model-x", "v7", ToolMode.WRITE, false,
                new TokenUsage(1200, 340), 100_000L, "s-parent",
                Map.of("c1", call("edit_file", 5, SessionHead.Approval.REQUESTED, false, false, requestedBy),
                        "c2", call("run_command", 9, SessionHead.Approval.GRANTED, true, false, requestedBy),
                        "c3", call("read_file", 10, SessionHead.Approval.NONE, false, true, requestedBy)),
                "claim-3", ResumeReason.CRASH, lastInterruptSeq, java.util.List.of(), startedAt, parentStartedAt, lastEventAt);
    }

    private static SessionHead.OpenCall call(String tool, long requestSeq, SessionHead.Approval approval, boolean authorized,
                                             boolean outcomeUnknown, String requestedBy) {
        return new SessionHead.OpenCall(tool, requestSeq, approval, authorized, outcomeUnknown, CallRunner.EXECUTOR, 0, false, 0,
                requestedBy);
    }

    static SessionHead minimalHead() {
        return new SessionHead("s-min", "acme", "agent-1", 2, 0, null, "model-x", "v1", ToolMode.READ_ONLY, true,
                TokenUsage.NONE, null, null, Map.of(), null, null, 0);
    }

    static SessionSummary fullSummary() {
        return SessionSummary.of(fullHead()).withHead(fullHead().lastSeq(), null); // as stored: the start is the head's
    }

    static SessionSummary minimalSummary() {
        return SessionSummary.of(minimalHead());
    }
}
