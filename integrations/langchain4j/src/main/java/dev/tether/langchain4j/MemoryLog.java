package dev.tether.langchain4j;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.client.SessionEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One memory's session log as {@link TetherChatMemoryStore} reads it: the fold of its events into what the store looks
 * up — every event by seq, the tool calls and who runs them, the session's system prompt, the records this package
 * wrote, the last seq. Events are added in seq order ({@link #add}); nothing else changes it. Not thread-safe (the
 * store works on one memory under its lock).
 */
final class MemoryLog {

    /** Who runs a tool call, as the session's declaration says (Tether's {@code CallRunner}). */
    enum Runner { EXECUTOR, HARNESS, RECORDED }

    /** A tool call the log asked for, and its result once it has one. */
    static final class Call {
        final String callId;
        final String tool;
        /** The seq of the {@code assistant_message} that asked for it. */
        final long askSeq;
        final Runner runner;
        /** The seq of its latest {@code tool_result}; 0 while it has none. */
        long resultSeq;
        /**
         * Its latest result is UNKNOWN and no person has settled it since (MARK_DONE, ABANDON; a RETRY waits for the next
         * attempt's result): the call is not answered, whatever {@link #resultSeq} says.
         */
        boolean outcomeOpen;
        /** The seq of the event that opened its latest approval item (its {@code approval_requested}, or an UNKNOWN result); 0: none. */
        long itemSeq;

        Call(String callId, String tool, long askSeq, Runner runner) {
            this.callId = callId;
            this.tool = tool;
            this.askSeq = askSeq;
            this.runner = runner;
        }

        /** Whether the log answers it: it has a result, and not an UNKNOWN one that no person settled since. */
        boolean answered() {
            return resultSeq > 0 && !outcomeOpen;
        }
    }

    /** A harness tool as {@code session_started} declares it. */
    record Declared(String name, boolean recordedOnly) {}

    private final String sessionId;
    private long lastSeq;
    private final Map<Long, Logged> events = new HashMap<>();
    private final Map<String, Call> calls = new HashMap<>();
    private List<Declared> declared = List.of();
    private String systemPrompt;
    /** The epoch of the session's latest claim; 0 before any. */
    private long claimEpoch;
    /** The seqs of this package's memory records, in log order; the last is the memory as it stands. */
    private final List<Long> memoryRecords = new ArrayList<>();

    /** An event as the fold keeps it: its type and payload (one copy, never handed out to be changed). */
    record Logged(long seq, String type, ObjectNode json) {

        String text(String field) {
            JsonNode value = json.get(field);
            return value == null || !value.isTextual() ? null : value.asText();
        }

        /** The sha256 of its offloaded text ({@code contentRef}, {@code artifact}, {@code summaryRef}), if it was offloaded. */
        Optional<String> offloadedSha() {
            for (String field : List.of("contentRef", "artifact", "summaryRef")) {
                JsonNode ref = json.get(field);
                if (ref != null && ref.isObject() && ref.path("sha256").isTextual()) {
                    return Optional.of(ref.get("sha256").asText());
                }
            }
            return Optional.empty();
        }
    }

    MemoryLog(String sessionId) {
        this.sessionId = sessionId;
    }

    String sessionId() {
        return sessionId;
    }

    /** The last seq folded; 0 before any event. */
    long lastSeq() {
        return lastSeq;
    }

    /** Folds the next event of the log. */
    void add(SessionEvent event) {
        add(event.seq(), event.type(), event.json());
    }

    /** Folds the next event of the log, given as its seq, type and JSON (which the fold keeps: do not change it later). */
    void add(long seq, String type, ObjectNode json) {
        if (seq != lastSeq + 1) {
            throw new IllegalStateException("event " + seq + " of " + sessionId + " folded after " + lastSeq
                    + ": the log is read in order, without gaps");
        }
        lastSeq = seq;
        Logged logged = new Logged(seq, type, json);
        events.put(seq, logged);
        switch (type) {
            case "session_started", "session_forked" -> {
                declared = declarations(json.path("harnessTools"));
                systemPrompt = logged.text("systemPrompt");
            }
            case "session_claimed" -> claimEpoch = json.path("epoch").asLong();
            case "assistant_message" -> {
                for (JsonNode call : json.path("toolCalls")) {
                    String callId = call.path("callId").asText();
                    String tool = call.path("tool").asText();
                    calls.putIfAbsent(callId, new Call(callId, tool, seq, runnerOf(tool)));
                }
            }
            case "tool_result" -> {
                Call call = calls.get(logged.text("callId"));
                if (call != null) {
                    call.resultSeq = seq;
                    call.outcomeOpen = "UNKNOWN".equals(logged.text("status"));
                    if (call.outcomeOpen) {
                        call.itemSeq = seq;
                    }
                }
            }
            case "tool_outcome_resolved" -> {
                Call call = calls.get(logged.text("callId"));
                if (call != null && !"RETRY".equals(logged.text("resolution"))) {
                    call.outcomeOpen = false;
                }
            }
            case "approval_requested" -> {
                Call call = calls.get(logged.text("callId"));
                if (call != null) {
                    call.itemSeq = seq;
                }
            }
            case "framework_state" -> {
                if (MemoryRecords.FRAMEWORK.equals(logged.text("framework")) && MemoryRecords.MEMORY.equals(logged.text("kind"))) {
                    memoryRecords.add(seq);
                }
            }
            default -> { }
        }
    }

    /** The event at {@code seq}; throws if the log has none there (a record pointing at nothing is a broken log). */
    Logged event(long seq) {
        Logged e = events.get(seq);
        if (e == null) {
            throw new TetherMemoryException(sessionId + " has no event " + seq + " (its last is " + lastSeq + ")");
        }
        return e;
    }

    /** The call {@code callId} asked for in this session. */
    Optional<Call> call(String callId) {
        return Optional.ofNullable(calls.get(callId));
    }

    /** Who runs a call of {@code tool}: its own declaration, else a {@code *} declaration, else the executor. */
    Runner runnerOf(String tool) {
        Declared own = declared.stream().filter(d -> d.name().equals(tool)).findFirst()
                .or(() -> declared.stream().filter(d -> d.name().equals("*")).findFirst()).orElse(null);
        return own == null ? Runner.EXECUTOR : own.recordedOnly() ? Runner.RECORDED : Runner.HARNESS;
    }

    /** The epoch of the session's latest claim ({@code session_claimed}); 0 before any. */
    long claimEpoch() {
        return claimEpoch;
    }

    /** The session's system prompt ({@code session_started}); null before it or when it has none. */
    String systemPrompt() {
        return systemPrompt;
    }

    /** The seq of the memory record that holds the memory as it stands; 0 when there is none. */
    long latestMemoryRecord() {
        return memoryRecords.isEmpty() ? 0 : memoryRecords.get(memoryRecords.size() - 1);
    }

    /** How many memory records the log holds. */
    int memoryRecordCount() {
        return memoryRecords.size();
    }

    private static List<Declared> declarations(JsonNode harnessTools) {
        var out = new ArrayList<Declared>();
        for (JsonNode t : harnessTools) {
            out.add(new Declared(t.path("name").asText(), t.path("recordedOnly").asBoolean(false)));
        }
        return List.copyOf(out);
    }
}
