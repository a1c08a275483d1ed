package dev.tether.cli.kafka;

import dev.tether.avro.Checkpoint;
import dev.tether.avro.SessionEvent;
import dev.tether.kit.kafka.EventAvro;
import dev.tether.kit.kafka.SessionEventKey;
import dev.tether.projector.avro.CheckpointAvro;
import dev.tether.projector.domain.Projection;
import dev.tether.projector.domain.SessionProjection;
import dev.tether.projector.migration.UnmigratableCheckpointException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.avro.Schema;

/**
 * The records of {@code session-events}, in offset order per partition, folded into one checkpoint
 * per session with the projector's own {@link Projection#evolve}. Checks as it goes that each
 * session's seqs run 1, 2, 3… and that each record's key matches its event; a session that fails a
 * check (or whose fold throws) is not folded further and is reported. An erasure's tombstones drop
 * the session. Pure: no Kafka client, no clock. Not thread-safe.
 */
final class LogFold {

    /** One session being rebuilt. */
    private static final class Rebuild {
        SessionProjection state;
        long lastSeq;
        String problem;
    }

    private final Map<String, Rebuild> sessions = new LinkedHashMap<>();
    private final Set<String> erased = new HashSet<>();
    /** Every session id tombstoned somewhere in the log, whatever came after. */
    private final Set<String> erasedOnce = new HashSet<>();
    private long events;
    private long tombstones;

    /** Folds one record: an event, or (a null value) an erasure's tombstone. */
    void accept(SessionEventKey key, SessionEvent value, int partition, long offset) {
        if (value == null) {
            tombstones++;
            sessions.remove(key.sessionId());
            erased.add(key.sessionId());
            erasedOnce.add(key.sessionId());
            return;
        }
        events++;
        Rebuild r = sessions.computeIfAbsent(key.sessionId(), id -> new Rebuild());
        erased.remove(key.sessionId()); // a session id used again after an erasure starts afresh at seq 1
        if (r.problem != null) {
            return;
        }
        String at = "offset " + offset + " of partition " + partition;
        if (!value.getSessionId().equals(key.sessionId()) || value.getSeq() != key.seq()) {
            r.problem = "the record at " + at + " is keyed " + key + " but holds " + value.getSessionId() + "/" + value.getSeq();
        } else if (key.seq() != r.lastSeq + 1) {
            r.problem = (r.lastSeq == 0 ? "its log starts at seq " + key.seq() : "seq " + key.seq() + " follows seq " + r.lastSeq) + " (" + at + ")";
        } else {
            try {
                r.state = Projection.evolve(r.state, EventAvro.fromAvro(value), partition, offset);
                r.lastSeq = key.seq();
            } catch (RuntimeException e) {
                r.problem = "folding seq " + key.seq() + " (" + value.getType() + ") failed: " + e.getMessage();
            }
        }
    }

    long events() {
        return events;
    }

    long tombstones() {
        return tombstones;
    }

    /** Sessions rebuilt (erased ones not counted), those with a problem included. */
    int sessions() {
        return sessions.size();
    }

    int erasedSessions() {
        return erased.size();
    }

    /** One line per session whose log or fold failed: {@code <sessionId>: <what>}. */
    List<String> problems() {
        var problems = new ArrayList<String>();
        sessions.forEach((id, r) -> {
            if (r.problem != null) {
                problems.add(id + ": " + r.problem);
            }
        });
        return problems;
    }

    /** The rebuilt checkpoint of a session, as the projector writes it; null if it has none or had a problem. */
    Checkpoint checkpoint(String sessionId) {
        Rebuild r = sessions.get(sessionId);
        return r == null || r.problem != null || r.state == null ? null : CheckpointAvro.toAvro(r.state);
    }

    /** Every rebuilt checkpoint by sessionId, in the order the sessions were first read; sessions with a problem left out. */
    Map<String, Checkpoint> checkpoints() {
        var all = new LinkedHashMap<String, Checkpoint>();
        for (String id : sessions.keySet()) {
            Checkpoint c = checkpoint(id);
            if (c != null) {
                all.put(id, c);
            }
        }
        return all;
    }

    /** The sessions whose log ends in an erasure's tombstones. */
    Set<String> erased() {
        return Set.copyOf(erased);
    }

    /**
     * The sessions whose checkpoint {@code replay --into} tombstones: those whose log ends in an erasure's tombstones, and
     * those erased and then started again under their id whose new log had a problem. The latter is not written, and a
     * checkpoint an earlier replay wrote of the erased session must not outlive its erasure.
     */
    Set<String> tombstoned() {
        var all = new HashSet<>(erased);
        sessions.forEach((id, r) -> {
            if (r.problem != null && erasedOnce.contains(id)) {
                all.add(id);
            }
        });
        return Set.copyOf(all);
    }

    /** The sorted result of comparing every rebuilt checkpoint with the projector's latest ones. */
    record Verdicts(int equal, List<String> differ, List<String> behind, List<String> ahead, List<String> missing) {}

    /** Compares every rebuilt checkpoint with {@code projected}, the latest checkpoint per session in {@code session-checkpoints}. */
    Verdicts compare(Map<String, Checkpoint> projected) {
        int equal = 0;
        var differ = new ArrayList<String>();
        var behind = new ArrayList<String>();
        var ahead = new ArrayList<String>();
        var missing = new ArrayList<String>();
        for (String id : sessions.keySet()) {
            Checkpoint rebuilt = checkpoint(id);
            if (rebuilt == null) {
                continue;
            }
            Checkpoint stored = projected.get(id);
            if (stored == null) {
                missing.add(id);
                continue;
            }
            if (stored.getSchemaVersion() != SessionProjection.SCHEMA_VERSION) {
                try { // an idle session's checkpoint from before an upgrade: compared as the projector would load it
                    stored = CheckpointAvro.toAvro(CheckpointAvro.load(stored).projection());
                } catch (UnmigratableCheckpointException e) {
                    differ.add(id + " (" + e.getMessage() + ")");
                    continue;
                }
            }
            if (stored.getLastSeq() < rebuilt.getLastSeq()) {
                behind.add(id);
            } else if (stored.getLastSeq() > rebuilt.getLastSeq()) {
                ahead.add(id);
            } else if (stored.equals(rebuilt)) {
                equal++;
            } else {
                differ.add(id + " (first in field " + firstDifference(stored, rebuilt) + ")");
            }
        }
        return new Verdicts(equal, differ, behind, ahead, missing);
    }

    private static String firstDifference(Checkpoint a, Checkpoint b) {
        for (Schema.Field field : Checkpoint.getClassSchema().getFields()) {
            if (!Objects.equals(a.get(field.pos()), b.get(field.pos()))) {
                return field.name();
            }
        }
        return "?";
    }
}
