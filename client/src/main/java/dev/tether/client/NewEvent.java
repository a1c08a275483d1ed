package dev.tether.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.client.internal.Json;
import dev.tether.client.internal.MalformedAnswerException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * An event to append: its wire type (e.g. {@code user_message}) and payload fields, as
 * docs/ARCHITECTURE.md §4 names them. Its eventId is derived from the batch's step ({@link EventIds}) unless
 * {@link #withEventId} fixes one. The envelope (seq, actor, time, harness version) is the
 * sequencer's to set.
 *
 * <pre>{@code
 * NewEvent.userMessage("Rename Foo to Bar in src/")
 * NewEvent.assistantMessage("Reading the file first.",
 *         List.of(new ToolCall("call-1", "read_file", "{\"path\":\"src/Foo.java\"}")), new TokenUsage(812, 40))
 * NewEvent.of("tool_outcome_resolved", Map.of("callId", "call-1", "resolution", "MARK_DONE", ...))
 * }</pre>
 *
 * Immutable and thread-safe.
 */
public final class NewEvent {

    /** The most tokens of either kind one turn may report: the sequencer refuses more. */
    public static final long MAX_TOKENS_PER_TURN = dev.tether.core.event.TokenUsage.MAX_PER_TURN;

    private final String type;
    private final ObjectNode fields;
    private final String eventId;

    private NewEvent(String type, ObjectNode fields, String eventId) {
        this.type = Ids.requireText(type, "type");
        this.fields = fields;
        this.eventId = eventId;
        if (fields.has("type") || fields.has("eventId")) {
            throw new IllegalArgumentException("type and eventId are not payload fields");
        }
    }

    /**
     * An event of any type, its payload fields given as a map of JSON-able values (strings, numbers,
     * booleans, lists, maps); null values are left out.
     *
     * @throws IllegalArgumentException naming the field for a value JSON has no text for: a number that is not finite, a
     *                                  cycle, or an object other than a string, number, boolean, enum, list, array, map or
     *                                  {@link JsonNode} (Jackson would write its getters, a {@code Date} as a number)
     */
    public static NewEvent of(String type, Map<String, ?> fields) {
        Objects.requireNonNull(fields, "fields");
        ObjectNode node = Json.object();
        fields.forEach((k, v) -> {
            if (v != null) {
                node.set(k, Json.value(v, k));
            }
        });
        return new NewEvent(type, node, null);
    }

    /**
     * An event written as the API's JSON, {@code {"type": ..., ...payload fields}}, optionally with an
     * {@code eventId} of its own.
     */
    public static NewEvent fromJson(String eventObject) {
        JsonNode node;
        try {
            node = Json.parse(Objects.requireNonNull(eventObject, "eventObject"));
        } catch (MalformedAnswerException e) { // the caller's text, not a service's answer
            throw new IllegalArgumentException("eventObject is not JSON: " + e.getMessage());
        }
        if (!node.isObject()) {
            throw new IllegalArgumentException("an event is a JSON object");
        }
        ObjectNode fields = ((ObjectNode) node).deepCopy();
        String type = Json.text(fields, "type");
        if (type == null) {
            throw new IllegalArgumentException("an event needs a type");
        }
        String id = Json.text(fields, "eventId");
        fields.remove("type");
        fields.remove("eventId");
        return new NewEvent(type, fields, id);
    }

    /** {@code user_message}: what the user said. */
    public static NewEvent userMessage(String content) {
        ObjectNode f = Json.object();
        f.put("content", Objects.requireNonNull(content, "content"));
        return new NewEvent("user_message", f, null);
    }

    /**
     * {@code assistant_message}: a model turn, the tool calls it asks for, and the tokens it used.
     *
     * @throws IllegalArgumentException for a count over {@link #MAX_TOKENS_PER_TURN}, which the sequencer refuses
     */
    public static NewEvent assistantMessage(String content, List<ToolCall> toolCalls, TokenUsage usage) {
        ObjectNode f = Json.object();
        f.put("content", Objects.requireNonNull(content, "content"));
        ArrayNode calls = f.putArray("toolCalls");
        int i = 0;
        for (ToolCall call : Objects.requireNonNull(toolCalls, "toolCalls")) {
            Objects.requireNonNull(call, "toolCalls[" + i++ + "]");
            calls.addObject().put("callId", call.callId()).put("tool", call.tool()).put("argumentsJson", call.argumentsJson());
        }
        Objects.requireNonNull(usage, "usage");
        f.putObject("usage").put("inputTokens", perTurn(usage.inputTokens(), "usage.inputTokens"))
                .put("outputTokens", perTurn(usage.outputTokens(), "usage.outputTokens"));
        return new NewEvent("assistant_message", f, null);
    }

    /** {@code tool_result}: how a call the harness ran itself ended. Calls the executor runs get theirs from the executor. */
    public static NewEvent toolResult(String callId, ToolStatus status, String content) {
        ObjectNode f = Json.object();
        f.put("callId", Ids.requireText(callId, "callId"));
        f.put("status", Objects.requireNonNull(status, "status").name());
        if (content != null) {
            f.put("content", content);
        }
        return new NewEvent("tool_result", f, null);
    }

    /**
     * {@code tool_result} of a harness-run call, with the attempt's idempotency key (the sequencer refuses another).
     * {@link HarnessToolRunner} writes these for you.
     */
    public static NewEvent toolResult(String callId, String idempotencyKey, ToolStatus status, String content) {
        return toolResult(callId, status, content).with("idempotencyKey", Ids.requireText(idempotencyKey, "idempotencyKey"));
    }

    /**
     * {@code tool_call_started}: attempt {@code attempt} of harness-run call {@code callId} starts now, under
     * {@code idempotencyKey}, by the worker of {@code epoch} (docs/ARCHITECTURE.md §6, "Harness-run tools").
     * {@link HarnessToolRunner} writes these for you.
     */
    public static NewEvent toolCallStarted(String callId, String idempotencyKey, long epoch, int attempt) {
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch must not be negative, not " + epoch);
        }
        positive(attempt, "attempt");
        ObjectNode f = Json.object();
        f.put("callId", Ids.requireText(callId, "callId"));
        f.put("idempotencyKey", Ids.requireText(idempotencyKey, "idempotencyKey"));
        f.put("epoch", epoch);
        f.put("attempt", attempt);
        return new NewEvent("tool_call_started", f, null);
    }

    /**
     * {@code tool_call_started} that also records {@code externalKey}, the key handed to the tool for this attempt
     * ({@link ToolInvocation#idempotencyKey()}: {@code idempotencyKey}, {@code ~} and the session's start in epoch
     * milliseconds; the sequencer refuses another), so that a reconciliation after a crash looks up that key.
     */
    public static NewEvent toolCallStarted(String callId, String idempotencyKey, long epoch, int attempt, String externalKey) {
        return toolCallStarted(callId, idempotencyKey, epoch, attempt).with("externalKey", Ids.requireText(externalKey, "externalKey"));
    }

    /**
     * {@code tool_outcome_resolved}: how a call whose outcome was unknown is settled, {@code MARK_DONE},
     * {@code RETRY} or {@code ABANDON}, in the name of {@code approver} (the authenticated caller). A harness writes
     * only RETRY, for its own started call its reconciliation hook proved had no effect.
     */
    public static NewEvent toolOutcomeResolved(String callId, String resolution, String approver, String reason) {
        ObjectNode f = Json.object();
        f.put("callId", Ids.requireText(callId, "callId"));
        f.put("resolution", Ids.requireText(resolution, "resolution"));
        f.put("approver", Ids.requireText(approver, "approver"));
        f.put("reason", Objects.requireNonNull(reason, "reason"));
        return new NewEvent("tool_outcome_resolved", f, null);
    }

    /** {@code turn_interrupted}: the model turn was cut off; its partial text is kept and marked in the context. */
    public static NewEvent turnInterrupted(String partialText, String reason) {
        ObjectNode f = Json.object();
        f.put("partialText", Objects.requireNonNull(partialText, "partialText"));
        f.put("reason", Objects.requireNonNull(reason, "reason"));
        return new NewEvent("turn_interrupted", f, null);
    }

    /**
     * {@code context_compacted}: the events through {@code throughSeq} are summarized by {@code summary},
     * built from the original events {@code summarySourceSeqs} (never from a previous summary).
     */
    public static NewEvent contextCompacted(long throughSeq, String summary, List<Long> summarySourceSeqs) {
        ObjectNode f = Json.object();
        f.put("throughSeq", positive(throughSeq, "throughSeq"));
        f.put("summary", Objects.requireNonNull(summary, "summary"));
        ArrayNode seqs = f.putArray("summarySourceSeqs");
        for (Long seq : Objects.requireNonNull(summarySourceSeqs, "summarySourceSeqs")) {
            String name = "summarySourceSeqs[" + seqs.size() + "]";
            seqs.add(positive(Objects.requireNonNull(seq, name), name));
        }
        return new NewEvent("context_compacted", f, null);
    }

    /** {@code plan_updated}: the agent's plan as it stands now. */
    public static NewEvent planUpdated(List<PlanItem> items) {
        ObjectNode f = Json.object();
        ArrayNode list = f.putArray("items");
        for (PlanItem i : Objects.requireNonNull(items, "items")) {
            Objects.requireNonNull(i, "items[" + list.size() + "]");
            list.addObject().put("text", i.text()).put("status", i.status().name());
        }
        return new NewEvent("plan_updated", f, null);
    }

    /** {@code step_completed}: step {@code step} is done; {@code verified} when the agent checked it. */
    public static NewEvent stepCompleted(int step, String note, boolean verified) {
        ObjectNode f = Json.object();
        f.put("step", (int) positive(step, "step"));
        f.put("note", Objects.requireNonNull(note, "note"));
        f.put("verified", verified);
        return new NewEvent("step_completed", f, null);
    }

    /**
     * {@code framework_state}: state an agent framework keeps with its session that Tether stores, offloads, scrubs and
     * replays but never interprets (a LangGraph checkpoint's channel versions and values, its pending writes), e.g.
     * {@code frameworkState("langgraph", "checkpoint", checkpointId, json)}. The model context and the checkpoint ignore
     * it; read it back with the session's events (large content comes back as an {@code artifact} to fetch).
     *
     * @param framework   which framework wrote it: 1-64 characters of {@code [a-z0-9._-]}, starting with a letter or digit
     * @param kind        what sort of state, e.g. {@code checkpoint} or {@code writes}: the same rule
     * @param key         what it is the state of, e.g. a checkpoint id: 1-512 characters, no control character
     * @param contentJson the state as JSON text; it must parse as one JSON value (the session-service refuses anything else)
     */
    public static NewEvent frameworkState(String framework, String kind, String key, String contentJson) {
        ObjectNode f = Json.object();
        f.put("framework", Ids.requireText(framework, "framework"));
        f.put("kind", Ids.requireText(kind, "kind"));
        if (Objects.requireNonNull(key, "key").isEmpty()) {
            throw new IllegalArgumentException("key must not be empty");
        }
        f.put("key", key);
        f.put("content", Objects.requireNonNull(contentJson, "contentJson"));
        return new NewEvent("framework_state", f, null);
    }

    /** {@code session_closed}: the session is over; nothing may be appended after it. */
    public static NewEvent sessionClosed(String outcome) {
        ObjectNode f = Json.object();
        f.put("outcome", Objects.requireNonNull(outcome, "outcome"));
        return new NewEvent("session_closed", f, null);
    }

    /** The same event with this eventId instead of the one its batch's step would give it. */
    public NewEvent withEventId(String id) {
        return new NewEvent(type, fields, Ids.requireText(id, "eventId"));
    }

    /**
     * The same event with one more payload field (or {@code field} replaced), e.g.
     * {@code stepCompleted(2, "tests pass", true).with("evidence", "commit 3f2a1c")}; {@code value} as {@link #of} takes it.
     */
    public NewEvent with(String field, Object value) {
        Ids.requireText(field, "field");
        ObjectNode copy = fields.deepCopy();
        if (value == null) {
            copy.remove(field);
        } else {
            copy.set(field, Json.value(value, field));
        }
        return new NewEvent(type, copy, eventId);
    }

    /** A seq or a step: from 1, as the sequencer takes it. */
    private static long positive(long value, String name) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " starts at 1, not " + value);
        }
        return value;
    }

    /** A token count of one turn: not negative (a {@link TokenUsage} never is), at most what the sequencer takes. */
    private static long perTurn(long tokens, String name) {
        if (tokens > MAX_TOKENS_PER_TURN) {
            throw new IllegalArgumentException(name + " must be at most " + MAX_TOKENS_PER_TURN + ", not " + tokens);
        }
        return tokens;
    }

    /** The wire type, e.g. {@code user_message}. */
    public String type() {
        return type;
    }

    /** The eventId fixed by {@link #withEventId} or {@link #fromJson}; empty when the batch's step derives it. */
    public Optional<String> eventId() {
        return Optional.ofNullable(eventId);
    }

    /** The payload fields (a copy). */
    public ObjectNode fields() {
        return fields.deepCopy();
    }

    /** The event as the API takes it: {@code {"eventId", "type", ...fields}}. */
    public ObjectNode toJson(String id) {
        ObjectNode node = Json.object();
        node.put("eventId", Ids.requireText(id, "eventId"));
        node.put("type", type);
        node.setAll(fields.deepCopy());
        return node;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NewEvent e && e.type.equals(type) && e.fields.equals(fields) && Objects.equals(e.eventId, eventId);
    }

    @Override
    public int hashCode() {
        return Objects.hash(type, fields, eventId);
    }

    /** The type and field names only: payloads may hold secrets until the service scrubs them. */
    @Override
    public String toString() {
        var names = new StringBuilder();
        fields.fieldNames().forEachRemaining(n -> names.append(names.length() == 0 ? "" : ",").append(n));
        return "NewEvent[" + type + (eventId == null ? "" : ", eventId=" + eventId) + ", fields=" + names + "]";
    }
}
