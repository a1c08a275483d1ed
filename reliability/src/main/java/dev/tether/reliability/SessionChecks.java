package dev.tether.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.client.Checkpoint;
import dev.tether.client.ReadAt;
import dev.tether.client.SessionEvent;
import dev.tether.client.TetherClient;
import dev.tether.kit.kafka.Topics;
import dev.tether.testing.TetherStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The checks of a run's scripted sessions ({@link ScriptedSession}), shared by the chaos run and the cluster run: each
 * session completed with gapless seqs and no eventId twice, every call settled exactly once, every effect exactly once,
 * every takeover one {@code session_resumed}; the raw {@code session-events} records; every final checkpoint equal to
 * its fault-free twin's after normalising. Each check prints what it finds and adds its figures and failures to the
 * ones it was given. Not thread-safe.
 */
final class SessionChecks {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final int rounds;
    private final Map<String, Object> figures;
    private final List<String> failures;

    /**
     * @param rounds   the rounds of the script the sessions played
     * @param figures  where the figures go (by name)
     * @param failures where the failures go
     */
    SessionChecks(int rounds, Map<String, Object> figures, List<String> failures) {
        this.rounds = rounds;
        this.figures = figures;
        this.failures = failures;
    }

    /**
     * The per-session checks, from the SDK's log and the workspace: the sessions played under faults ({@code chaos}) or
     * their fault-free twins.
     */
    void sessions(List<String> ids, Map<String, List<SessionEvent>> logs, Path workspaces, boolean chaos) throws IOException {
        if (ids.isEmpty()) {
            return;
        }
        System.out.printf("%n== checks (%s)%n", chaos ? "chaos sessions" : "reference sessions");
        long events = 0;
        int unknownResults = 0;
        int retries = 0;
        int resumedTotal = 0;
        int duplicatedEffects = 0;
        int lost = 0;
        int interruptedRuns = 0;
        for (String id : ids) {
            List<SessionEvent> log = logs.get(id);
            events += log.size();
            var problems = new ArrayList<String>();
            if (log.isEmpty() || !log.get(log.size() - 1).type().equals("session_closed")) {
                problems.add("not completed (the last event is not session_closed)");
                lost++;
            }
            for (int i = 0; i < log.size(); i++) {
                if (log.get(i).seq() != i + 1) {
                    problems.add("seq gap or reorder: position " + (i + 1) + " holds seq " + log.get(i).seq());
                    break;
                }
            }
            Set<String> eventIds = new TreeSet<>();
            log.forEach(e -> {
                if (!eventIds.add(e.eventId())) {
                    problems.add("eventId " + e.eventId() + " twice");
                }
            });
            // every call: results in order, all but the last UNKNOWN; settled by OK or by a MARK_DONE
            Map<String, List<String>> results = new HashMap<>();
            Map<String, List<String>> resolutions = new HashMap<>();
            for (SessionEvent e : log) {
                if (e.type().equals("tool_result")) {
                    results.computeIfAbsent(e.text("callId").orElse("?"), k -> new ArrayList<>()).add(e.text("status").orElse("?"));
                } else if (e.type().equals("tool_outcome_resolved")) {
                    resolutions.computeIfAbsent(e.text("callId").orElse("?"), k -> new ArrayList<>()).add(e.text("resolution").orElse("?"));
                }
            }
            var callIds = new ArrayList<String>();
            callIds.add("write-0");
            for (int r = 1; r <= rounds; r++) {
                callIds.add("count-" + r);
                callIds.add("edit-" + r);
            }
            for (String callId : callIds) {
                List<String> statuses = results.getOrDefault(callId, List.of());
                List<String> resolved = resolutions.getOrDefault(callId, List.of());
                long unknown = statuses.stream().filter("UNKNOWN"::equals).count();
                unknownResults += (int) unknown;
                retries += (int) resolved.stream().filter("RETRY"::equals).count();
                boolean settledOk = !statuses.isEmpty() && statuses.get(statuses.size() - 1).equals("OK")
                        && unknown == statuses.size() - 1 && resolved.size() == unknown
                        && resolved.stream().allMatch("RETRY"::equals);
                boolean settledMarkDone = !statuses.isEmpty() && unknown == statuses.size() && resolved.size() == unknown
                        && resolved.get(resolved.size() - 1).equals("MARK_DONE")
                        && resolved.subList(0, resolved.size() - 1).stream().allMatch("RETRY"::equals);
                if (!settledOk && !settledMarkDone) {
                    problems.add(callId + ": results " + statuses + ", resolutions " + resolved
                            + " (expected OK, or UNKNOWN settled by a human: RETRY…, then OK or MARK_DONE)");
                }
            }
            // the calls of the interrupted turn: one CANCELLED result each, never authorized, never run
            if (rounds >= 1) {
                for (String callId : List.of(ScriptedSession.STOPPED_COMMAND_CALL, ScriptedSession.STOPPED_READ_CALL)) {
                    List<String> statuses = results.getOrDefault(callId, List.of());
                    if (!statuses.equals(List.of("CANCELLED"))) {
                        problems.add(callId + " (its turn was interrupted): results " + statuses + ", expected exactly [CANCELLED]");
                    }
                    if (log.stream().anyMatch(e -> e.type().equals("tool_call_authorized") && e.text("callId").orElse("").equals(callId))) {
                        problems.add(callId + " (its turn was interrupted) was authorized");
                        interruptedRuns++;
                    }
                }
                if (Files.exists(workspaces.resolve(id).resolve(ScriptedSession.STOPPED_FILE))) {
                    problems.add(ScriptedSession.STOPPED_FILE + " exists: a command of an interrupted turn ran");
                    interruptedRuns++;
                }
            }
            // the effects: one line per round, the note at the last round
            Path count = workspaces.resolve(id).resolve(ScriptedSession.COUNT_FILE);
            int lines = Files.exists(count) ? Files.readAllLines(count).size() : 0;
            if (lines != rounds) {
                problems.add("count.txt has " + lines + " line(s) for " + rounds + " rounds (each counting command must take effect exactly once)");
                duplicatedEffects += Math.max(0, lines - rounds);
            }
            Path notes = workspaces.resolve(id).resolve(ScriptedSession.NOTES_FILE);
            String note = Files.exists(notes) ? Files.readString(notes) : "(missing)";
            if (!note.equals("round " + rounds + "\n")) {
                problems.add("notes.txt holds " + note.strip() + ", expected round " + rounds);
            }
            for (String type : List.of("turn_interrupted", "context_compacted")) {
                if (log.stream().noneMatch(e -> e.type().equals(type))) {
                    problems.add("no " + type + " in the log");
                }
            }
            // every takeover (a claim by another worker) is exactly one session_resumed CRASH, right after its claim
            var claimers = new ArrayList<String>();
            int resumed = 0;
            for (int i = 0; i < log.size(); i++) {
                SessionEvent e = log.get(i);
                if (e.type().equals("session_claimed")) {
                    claimers.add(e.text("workerId").orElse("?"));
                    boolean followed = i + 1 < log.size() && log.get(i + 1).type().equals("session_resumed");
                    if (claimers.size() > 1 && !(followed && log.get(i + 1).text("reason").orElse("").equals("CRASH"))) {
                        problems.add("the takeover by " + claimers.get(claimers.size() - 1) + " at seq " + e.seq()
                                + " is not followed by a session_resumed CRASH");
                    }
                    if (claimers.size() == 1 && followed) {
                        problems.add("the first claim is followed by a session_resumed");
                    }
                } else if (e.type().equals("session_resumed")) {
                    resumed++;
                }
            }
            if (new TreeSet<>(claimers).size() != claimers.size()) {
                problems.add("a worker claimed the session twice: " + claimers);
            }
            if (resumed != Math.max(0, claimers.size() - 1)) {
                problems.add(resumed + " session_resumed for " + Math.max(0, claimers.size() - 1) + " takeover(s)");
            }
            if (!chaos && resumed > 0) {
                problems.add("a fault-free session has " + resumed + " session_resumed");
            }
            resumedTotal += resumed;
            if (chaos || !problems.isEmpty()) {
                System.out.printf("  %s %s: %d events, count.txt %d lines, %d claim(s), %d session_resumed, results %s%n",
                        problems.isEmpty() ? "✔" : "✘", id, log.size(), lines, claimers.size(), resumed, unknownSummary(results));
            }
            problems.forEach(p -> {
                System.out.println("      " + p);
                failures.add(id + ": " + p);
            });
        }
        System.out.printf("%n  %d sessions, %d events, %d session_resumed, %d UNKNOWN tool results (%d retried)%n", ids.size(), events,
                resumedTotal, unknownResults, retries);
        if (chaos) {
            figures.put("events", events);
            figures.put("session_resumed events (one per takeover)", resumedTotal);
            figures.put("UNKNOWN tool results", unknownResults);
            figures.put("UNKNOWN outcomes retried", retries);
            figures.put("sessions completed", ids.size() - lost);
            figures.put("lost", lost);
            figures.put("duplicated effects", duplicatedEffects);
            figures.put("calls of interrupted turns authorized or run", interruptedRuns);
        } else {
            figures.put("reference sessions (fault-free)", ids.size());
        }
    }

    private static String unknownSummary(Map<String, List<String>> results) {
        var unknown = new TreeMap<String, List<String>>();
        results.forEach((k, v) -> {
            if (v.contains("UNKNOWN")) {
                unknown.put(k, v);
            }
        });
        return unknown.isEmpty() ? "all OK" : "with UNKNOWN " + unknown;
    }

    /** The raw {@code session-events} check ({@link RawTopics#checkSessionEvents}) of {@code logs}' sessions; what it read. */
    RawTopics.LogCheck rawLog(TetherStack stack, String prefix, Map<String, List<SessionEvent>> logs) {
        String topic = prefix + Topics.SESSION_EVENTS;
        RawTopics.LogCheck check = RawTopics.checkSessionEvents(stack, topic, logs);
        System.out.printf("%n== raw %s: %d committed records of the run's sessions, %d problem(s)%n", topic, check.records(),
                check.problems().size());
        check.problems().forEach(p -> {
            System.out.println("  ✘ " + p);
            failures.add("raw log: " + p);
        });
        figures.put("session-events records read raw", check.records());
        figures.put("eventIds not exactly once in session-events", check.problems().size());
        return check;
    }

    /**
     * Fields of a checkpoint that must differ between a chaos session and its fault-free twin, and why: the session's
     * id; seqs and offsets (claims and {@code session_resumed} events only exist because of faults, so every later
     * event has a higher seq); idempotency keys (they hold the requesting event's seq); the lease (another worker
     * holds it, at a higher epoch); times.
     */
    static final Pattern NORMALISED = Pattern.compile("sessionId|lastSeq|.*Seq|seq|.*Offset|partition|idempotencyKey|lease|.*At");

    /** Every final checkpoint of {@code chaosIds} against its twin's in {@code referenceIds} (same index), normalised. */
    void checkpoints(TetherClient agent, List<String> chaosIds, List<String> referenceIds, Map<String, List<SessionEvent>> logs) {
        int identical = 0;
        int rawIdentical = 0;
        var normalisedSeen = new TreeSet<String>();
        System.out.printf("%n== final checkpoints: chaos session vs. its fault-free twin%n");
        for (int i = 0; i < chaosIds.size(); i++) {
            String a = chaosIds.get(i);
            String b = referenceIds.get(i);
            Optional<Checkpoint> ca;
            Optional<Checkpoint> cb;
            try {
                ca = agent.checkpoint(a, ReadAt.atLeast(lastSeq(logs.get(a))));
                cb = agent.checkpoint(b, ReadAt.atLeast(lastSeq(logs.get(b))));
            } catch (RuntimeException e) {
                // a failed read is a failed check, not the end of the run: the other checks and the results still count
                failures.add(a + ": its final checkpoint or its twin's could not be read: " + e.getMessage());
                continue;
            }
            if (ca.isEmpty() || cb.isEmpty()) {
                failures.add(a + ": no final checkpoint to compare");
                continue;
            }
            try {
                JsonNode ja = JSON.readTree(ca.get().json());
                JsonNode jb = JSON.readTree(cb.get().json());
                if (ja.equals(jb)) {
                    rawIdentical++;
                }
                JsonNode na = normalise(ja, normalisedSeen);
                JsonNode nb = normalise(jb, normalisedSeen);
                if (JSON.writeValueAsString(na).equals(JSON.writeValueAsString(nb))) {
                    identical++;
                } else {
                    failures.add(a + ": final checkpoint differs from its fault-free twin " + b + " (normalised): "
                            + differences(na, nb, "", new ArrayList<>()));
                }
            } catch (IOException e) {
                failures.add(a + ": checkpoint is not JSON: " + e.getMessage());
            }
        }
        System.out.printf("  %d of %d identical byte for byte after normalising %s%n", identical, chaosIds.size(), normalisedSeen);
        figures.put("final checkpoints identical to the fault-free run (normalised)", identical + " of " + chaosIds.size());
        figures.put("final checkpoints identical without normalising", rawIdentical + " of " + chaosIds.size());
        figures.put("checkpoint fields normalised", String.join(", ", normalisedSeen));
    }

    private static long lastSeq(List<SessionEvent> log) {
        return log.isEmpty() ? 0 : log.get(log.size() - 1).seq();
    }

    /**
     * A copy with every field {@link #NORMALISED} matches replaced by {@code "*"}, and without the traces of a human's
     * {@code tool_outcome_resolved} (an UNKNOWN outcome only exists because a fault hit a running command): its entry in
     * {@code decisions} and its line in the compaction's facts. What was normalised goes to {@code seen}.
     */
    static JsonNode normalise(JsonNode node, Set<String> seen) {
        if (node.isObject()) {
            ObjectNode copy = JSON.createObjectNode();
            node.fields().forEachRemaining(e -> {
                String key = e.getKey();
                JsonNode value = e.getValue();
                if (NORMALISED.matcher(key).matches()) {
                    seen.add(key);
                    copy.put(key, "*");
                } else if (key.equals("decisions") && value.isArray()) {
                    var kept = JSON.createArrayNode();
                    value.forEach(d -> {
                        if (d.path("kind").asText().equals("tool_outcome_resolved")) {
                            seen.add("decisions of kind tool_outcome_resolved");
                        } else {
                            kept.add(normalise(d, seen));
                        }
                    });
                    copy.set(key, kept);
                } else if (key.equals("facts") && value.isTextual() && value.asText().contains("- tool_outcome_resolved")) {
                    seen.add("tool_outcome_resolved lines of compaction.facts");
                    copy.put(key, value.asText().lines().filter(l -> !l.startsWith("- tool_outcome_resolved"))
                            .collect(java.util.stream.Collectors.joining("\n")));
                } else {
                    copy.set(key, normalise(value, seen));
                }
            });
            return copy;
        }
        if (node.isArray()) {
            var copy = JSON.createArrayNode();
            node.forEach(n -> copy.add(normalise(n, seen)));
            return copy;
        }
        return node;
    }

    /** The paths where {@code a} and {@code b} differ (at most a few), for the failure message. */
    static List<String> differences(JsonNode a, JsonNode b, String path, List<String> out) {
        if (out.size() >= 5) {
            return out;
        }
        if (a.isObject() && b.isObject()) {
            var keys = new TreeSet<String>();
            a.fieldNames().forEachRemaining(keys::add);
            b.fieldNames().forEachRemaining(keys::add);
            for (String k : keys) {
                differences(a.path(k), b.path(k), path + "." + k, out);
            }
        } else if (a.isArray() && b.isArray() && a.size() == b.size()) {
            for (int i = 0; i < a.size(); i++) {
                differences(a.get(i), b.get(i), path + "[" + i + "]", out);
            }
        } else if (!a.equals(b)) {
            out.add(path + ": " + clip(a.toString()) + " vs. " + clip(b.toString()));
        }
        return out;
    }

    private static String clip(String s) {
        return s.length() > 300 ? s.substring(0, 300) + "…" : s;
    }
}
