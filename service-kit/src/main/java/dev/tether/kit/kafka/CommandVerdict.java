package dev.tether.kit.kafka;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The sequencer's verdict on one command, as the instance that sent it gets it back through {@link CommandChannel}:
 * {@link Accepted} (applied, or an idempotent repeat) with where each of its events ended up, or {@link Rejected} with
 * a stable reason. Plain immutable values: the Avro form ({@code CommandReply}) stays inside the channel.
 */
public sealed interface CommandVerdict {

    /** The session's last seq after the command, or when it was rejected; 0 when the caller may not see the session. */
    long lastSeq();

    /** The session's worker epoch after the command, or when it was rejected; 0 when the caller may not see the session. */
    long epoch();

    /** Where one event of an accepted command ended up. */
    record Appended(String eventId, long seq, boolean duplicate, String type) {}

    /**
     * Applied. {@code appended} lists the command's events in order (empty for commands that append none of the
     * caller's, e.g. a claim); {@code resumeReason} is set for a claim of a session another worker held
     * ({@code CRASH} or {@code DEPLOY}); {@code sessionStartedAt} is when the sequencer accepted the session's first
     * event, which tells the session apart from an erased one of its id (empty from an earlier release and for a
     * session stored before its start was kept); {@code pin} the harness version and model the session is pinned to
     * after the command (empty from an earlier release).
     */
    record Accepted(List<Appended> appended, long lastSeq, long epoch, Optional<String> resumeReason, Optional<Instant> sessionStartedAt,
                    Optional<Pin> pin) implements CommandVerdict {
        public Accepted {
            appended = List.copyOf(appended);
        }

        /** This verdict for a claim that resumed the session, for {@code reason}. */
        public Accepted resumed(String reason) {
            return new Accepted(appended, lastSeq, epoch, Optional.of(reason), sessionStartedAt, pin);
        }

        /** This verdict for the session that started at {@code startedAt}; null leaves it unknown. */
        public Accepted startedAt(Instant startedAt) {
            return new Accepted(appended, lastSeq, epoch, resumeReason, Optional.ofNullable(startedAt), pin);
        }

        /** This verdict for a session pinned to {@code harnessVersion} and {@code modelId}; a null one leaves the pin unknown. */
        public Accepted pinnedTo(String harnessVersion, String modelId) {
            return new Accepted(appended, lastSeq, epoch, resumeReason, sessionStartedAt,
                    harnessVersion == null || modelId == null ? Optional.empty() : Optional.of(new Pin(harnessVersion, modelId)));
        }
    }

    /** The harness version and model a session is pinned to. */
    record Pin(String harnessVersion, String modelId) {}

    /**
     * Not applied, for {@code code}: a stable snake_case reason ({@code not_found}, {@code seq_conflict},
     * {@code stale_epoch}, {@code version_pinned}, {@code illegal_event}, {@code budget_exceeded},
     * {@code session_closed}, {@code forbidden}); {@code field} names the offending field of an illegal event.
     */
    record Rejected(String code, String message, Optional<String> field, long lastSeq, long epoch) implements CommandVerdict {
        /** This rejection naming the offending {@code field}, e.g. {@code events[1].callId}. */
        public Rejected on(String field) {
            return new Rejected(code, message, Optional.of(field), lastSeq, epoch);
        }
    }

    static Accepted accepted(List<Appended> appended, long lastSeq, long epoch) {
        return new Accepted(appended, lastSeq, epoch, Optional.empty(), Optional.empty(), Optional.empty());
    }

    static Rejected rejected(String code, String message, long lastSeq, long epoch) {
        return new Rejected(code, message, Optional.empty(), lastSeq, epoch);
    }
}
