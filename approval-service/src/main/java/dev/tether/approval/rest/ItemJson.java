package dev.tether.approval.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.approval.domain.ApprovalItem;
import dev.tether.approval.domain.ApprovalMachine;
import dev.tether.approval.domain.DecisionKind;
import dev.tether.core.event.CallRunner;
import dev.tether.core.policy.PathGlob;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * The JSON an approver gets for an item: what to decide on (session, call, tool, arguments, exactly what is shown,
 * who asked and when), where it stands, and, while it is pending, the decisions it takes. Stateless.
 */
final class ItemJson {

    private final ObjectMapper json;
    private final Duration timeout;

    ItemJson(ObjectMapper json, Duration timeout) {
        this.json = json;
        this.timeout = timeout;
    }

    /** @param shown the full shown text (read back from the blob store when it was offloaded) */
    ObjectNode of(ApprovalItem item, String shown, CallRunner runBy) {
        ObjectNode out = json.createObjectNode();
        out.put("id", item.id());
        out.put("kind", item.kind().name());
        out.put("status", item.status().name());
        out.put("sessionId", item.sessionId());
        out.put("callId", item.callId());
        out.put("tool", item.tool());
        out.set("arguments", arguments(item.argumentsJson()));
        out.put("shown", shown);
        if (item.shownRef() != null) {
            ObjectNode ref = out.putObject("shownRef");
            ref.put("uri", item.shownRef().uri());
            ref.put("sha256", item.shownRef().sha256());
            ref.put("size", item.shownRef().size());
            out.put("shownComplete", !shown.equals(item.shown()));
        }
        out.put("seq", item.seq());
        out.put("requestSeq", item.requestSeq());
        out.put("requestedAt", item.requestedAt().toString());
        out.put("requestedBy", item.requestedBy());
        out.put("model", item.modelId());
        if (item.status().pending() && item.kind() == ApprovalItem.Kind.APPROVAL) {
            out.put("expiresAt", ApprovalMachine.expiresAt(item, timeout).toString());
        }
        if (item.outcome() != null) {
            out.put("outcome", item.outcome());
        }
        if (item.status().pending()) {
            ArrayNode decisions = out.putArray("decisions");
            DecisionKind.on(item.kind()).forEach(d -> decisions.add(d.name()));
            if (runBy != null) {
                out.put("runBy", runBy.name());
            }
            // a glob covers none of the calls a session's harness runs: the approval would be refused
            String glob = runBy == CallRunner.HARNESS ? null : suggestedGlob(item);
            if (glob != null) {
                out.put("suggestedPathGlob", glob);
            }
        }
        if (item.decision() != null) {
            ApprovalItem.Decision d = item.decision();
            ObjectNode decision = out.putObject("decision");
            decision.put("decision", d.decision().name());
            decision.put("approver", d.approver());
            decision.put("reason", d.reason());
            if (d.tool() != null) {
                decision.put("tool", d.tool());
            }
            if (d.pathGlob() != null) {
                decision.put("pathGlob", d.pathGlob());
            }
            decision.put("seq", d.seq());
            decision.put("decidedAt", d.decidedAt().toString());
        }
        if (item.endedBecause() != null) {
            out.put("endedBecause", item.endedBecause());
        }
        return out;
    }

    /** The call's arguments: their JSON, or their text when it is not JSON (empty or blank text included). */
    private JsonNode arguments(String argumentsJson) {
        try {
            JsonNode arguments = json.readTree(argumentsJson);
            if (arguments != null && !arguments.isMissingNode()) {
                return arguments;
            }
        } catch (IOException e) {
            // answered below
        }
        return json.getNodeFactory().textNode(argumentsJson);
    }

    /** For a call on {@code a/b/c.txt}: {@code a/b/**}, what a session grant for "this directory" would say. */
    private String suggestedGlob(ApprovalItem item) {
        if (item.kind() != ApprovalItem.Kind.APPROVAL) {
            return null;
        }
        JsonNode path = arguments(item.argumentsJson()).get("path");
        if (path == null || !path.isTextual() || PathGlob.normalize(path.asText()).isEmpty()) {
            return null;
        }
        List<String> segments = PathGlob.normalize(path.asText()).get();
        List<String> directory = segments.subList(0, segments.size() - 1);
        if (directory.stream().anyMatch(d -> d.indexOf('*') >= 0 || d.indexOf('?') >= 0)) {
            // the path is the model's, and '*' or '?' in a directory's name would be a wildcard in the glob (a directory
            // named '**' would suggest '**/**', every path); a glob has no way to say them plainly
            return null;
        }
        String glob = segments.size() == 1 ? "*" : String.join("/", directory) + "/**";
        try {
            return PathGlob.parse(glob).toString();
        } catch (PathGlob.InvalidGlobException e) {
            return null; // a directory whose name a glob cannot say plainly
        }
    }
}
