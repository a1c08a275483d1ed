package dev.tether.cli.commands;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.cli.output.Output;
import dev.tether.client.SessionEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * One line per event for {@code sessions tail}: seq, time, type, actor and the payload's gist
 * (docs/ARCHITECTURE.md §4's fields, shortened). A type this CLI does not know shows its payload fields.
 */
public final class EventSummary {

    static final String HEADER = String.format("%5s  %-24s  %-21s  %-24s  %s", "SEQ", "TIME", "TYPE", "ACTOR", "SUMMARY");

    private static final int WIDTH = 100;
    private static final Set<String> ENVELOPE = Set.of("seq", "eventId", "type", "sessionId", "occurredAt", "actor", "harnessVersion");

    private EventSummary() {}

    static String line(SessionEvent e) {
        String actor = e.actor().kind() + " " + e.actor().id();
        return String.format("%5d  %-24s  %-21s  %-24s  %s", e.seq(), e.occurredAt(), e.type(), Views.clip(actor, 24),
                Views.clip(gist(e), WIDTH));
    }

    /** The harness-run tools a session declares, e.g. {@code ; harness runs send_email, web_search (recorded-only)}. */
    private static String harnessTools(ObjectNode j) {
        if (!j.hasNonNull("harnessTools") || j.get("harnessTools").isEmpty()) {
            return "";
        }
        var names = new java.util.ArrayList<String>();
        j.get("harnessTools").forEach(t -> names.add(t.path("name").asText() + (t.path("recordedOnly").asBoolean() ? " (recorded-only)" : "")));
        return "; harness runs " + String.join(", ", names);
    }

    public static String gist(SessionEvent e) {
        ObjectNode j = e.json();
        return switch (e.type()) {
            case "session_started" -> quote(text(j, "objective")) + " (" + text(j, "modelId") + ", " + text(j, "harnessVersion") + ", "
                    + text(j, "toolMode") + ")" + harnessTools(j);
            case "session_forked" -> "from " + text(j, "parentSessionId") + " at seq " + text(j, "atSeq");
            case "user_message" -> quote(content(j, "content", "contentRef"));
            case "assistant_message" -> assistant(j);
            case "approval_requested" -> text(j, "callId") + " " + text(j, "tool") + ": " + quote(text(j, "shown"));
            case "approval_granted", "approval_denied" -> text(j, "callId") + " " + text(j, "scope")
                    + (j.hasNonNull("tool") ? " " + text(j, "tool") : "") + (j.hasNonNull("pathGlob") ? " " + text(j, "pathGlob") : "")
                    + " by " + text(j, "approver") + reason(j);
            case "tool_call_authorized" -> text(j, "callId") + " by " + basis(j.get("basis"));
            case "tool_result" -> text(j, "callId") + " " + text(j, "status") + ": " + quote(content(j, "content", "artifact"));
            case "tool_call_started" -> text(j, "callId") + " attempt " + text(j, "attempt") + ", epoch " + text(j, "epoch") + ", key "
                    + text(j, "idempotencyKey") + (j.path("externalKey").isTextual() ? ", handed to the tool as " + text(j, "externalKey") : "");
            case "framework_state" -> text(j, "framework") + " " + text(j, "kind") + " " + text(j, "key") + ", " + contentSize(j) + " bytes"
                    + (j.path("artifact").isObject() ? " (offloaded)" : "");
            case "tool_outcome_resolved" -> text(j, "callId") + " " + text(j, "resolution") + " by " + text(j, "approver") + reason(j);
            case "turn_interrupted" -> text(j, "reason") + (j.hasNonNull("partialText") ? ", partial " + quote(text(j, "partialText")) : "");
            case "context_compacted" -> "through seq " + text(j, "throughSeq") + ": " + quote(content(j, "summary", "summaryRef"));
            case "plan_updated" -> plan(j.get("items"));
            case "step_completed" -> "step " + text(j, "step") + (j.path("verified").asBoolean() ? " (verified)" : "") + ": "
                    + quote(text(j, "note"));
            case "session_claimed" -> text(j, "workerId") + ", epoch " + text(j, "epoch") + ", " + text(j, "harnessVersion");
            case "session_resumed" -> text(j, "reason") + " from seq " + text(j, "fromSeq") + ": " + text(j, "reconciliation");
            case "session_migrated" -> text(j, "fromVersion") + " -> " + text(j, "toVersion");
            case "subagent_result" -> text(j, "childSessionId") + ": " + quote(text(j, "outcome"));
            case "session_closed" -> quote(text(j, "outcome"));
            default -> payload(j);
        };
    }

    private static String assistant(ObjectNode j) {
        var calls = new ArrayList<String>();
        for (JsonNode c : j.path("toolCalls")) {
            calls.add(c.path("callId").asText() + " " + c.path("tool").asText() + " " + c.path("argumentsJson").asText());
        }
        String content = content(j, "content", "contentRef");
        return (content.isEmpty() ? "" : quote(content)) + (calls.isEmpty() ? "" : (content.isEmpty() ? "" : " ") + "-> " + String.join("; ", calls));
    }

    private static String plan(JsonNode items) {
        List<String> parts = new ArrayList<>();
        for (JsonNode item : items == null ? List.<JsonNode>of() : items) {
            parts.add(item.path("text").asText() + " (" + item.path("status").asText() + ")");
        }
        return String.join(", ", parts);
    }

    private static String basis(JsonNode basis) {
        if (basis == null || basis.isNull()) {
            return "?";
        }
        return basis.hasNonNull("approvalSeq") ? "approval at seq " + basis.get("approvalSeq").asText() : basis.path("kind").asText();
    }

    private static String reason(ObjectNode j) {
        String reason = text(j, "reason");
        return reason.isEmpty() ? "" : ": " + quote(reason);
    }

    /** The text, or an offloaded blob's preview. */
    private static String content(ObjectNode j, String field, String refField) {
        if (j.hasNonNull(field)) {
            return j.get(field).asText();
        }
        JsonNode ref = j.get(refField);
        if (ref != null && ref.isObject()) {
            return "[blob " + ref.path("size").asText() + " bytes] " + ref.path("preview").asText();
        }
        return "";
    }

    /** The size of a framework's state in UTF-8 bytes: the offloaded blob's, or the content's. */
    private static long contentSize(ObjectNode j) {
        JsonNode ref = j.get("artifact");
        if (ref != null && ref.isObject()) {
            return ref.path("size").asLong();
        }
        return text(j, "content").getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    }

    private static String payload(ObjectNode j) {
        ObjectNode rest = j.deepCopy();
        ENVELOPE.forEach(rest::remove);
        return Output.compact(rest);
    }

    private static String text(ObjectNode j, String field) {
        JsonNode v = j.get(field);
        return v == null || v.isNull() ? "" : v.isValueNode() ? v.asText() : Output.compact(v);
    }

    private static String quote(String text) {
        return "\"" + text + "\"";
    }
}
