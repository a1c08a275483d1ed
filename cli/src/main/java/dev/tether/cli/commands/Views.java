package dev.tether.cli.commands;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.cli.CliException;
import dev.tether.cli.output.Output;
import dev.tether.client.HarnessVersion;
import dev.tether.client.Rejected;
import dev.tether.client.SessionInfo;
import java.util.List;

/**
 * The JSON of the SDK's read models that keep no copy of the service's answer, in the services'
 * own field names, so {@code --json} output reads like the API; and the one-line refusals.
 */
public final class Views {

    private Views() {}

    static ObjectNode session(SessionInfo s) {
        ObjectNode n = Output.object();
        n.put("sessionId", s.sessionId());
        n.put("tenantId", s.tenantId());
        n.put("owner", s.owner());
        n.put("status", s.status());
        n.put("lastSeq", s.lastSeq());
        n.put("epoch", s.epoch());
        s.workerId().ifPresent(w -> n.put("workerId", w));
        n.put("modelId", s.modelId());
        n.put("harnessVersion", s.harnessVersion());
        s.parentSessionId().ifPresent(p -> n.put("parentSessionId", p));
        s.sessionStartedAt().ifPresent(t -> n.put("sessionStartedAt", t.toString()));
        return n;
    }

    static ObjectNode sessions(List<SessionInfo> sessions) {
        ObjectNode n = Output.object();
        ArrayNode list = n.putArray("sessions");
        sessions.forEach(s -> list.add(session(s)));
        return n;
    }

    static ObjectNode version(HarnessVersion v) {
        ObjectNode n = Output.object();
        n.put("version", v.version());
        n.put("weight", v.weight());
        n.put("share", v.share());
        n.put("state", v.state());
        if (v.isDefault()) {
            n.put("default", true);
        }
        v.modelId().ifPresent(m -> n.put("modelId", m));
        n.put("openSessions", v.openSessions());
        return n;
    }

    static ObjectNode versions(List<HarnessVersion> versions) {
        ObjectNode n = Output.object();
        ArrayNode list = n.putArray("versions");
        versions.forEach(v -> list.add(version(v)));
        return n;
    }

    /** A refusal as the one line a failed command prints. */
    static CliException refused(String what, Rejected r) {
        return new CliException(what + " was refused (" + r.status() + " " + r.code() + "): " + r.message()
                + r.field().map(f -> " [field " + f + "]").orElse(""));
    }

    /** {@code 1 event}, {@code 2 events}. */
    static String count(long n, String noun) {
        return String.format(java.util.Locale.ROOT, "%,d %s%s", n, noun, n == 1 ? "" : "s");
    }

    /** Text on one line, cut to {@code max} characters. */
    public static String clip(String text, int max) {
        if (text == null) {
            return "";
        }
        String flat = text.replaceAll("\\s+", " ").trim();
        if (flat.length() <= max) {
            return flat;
        }
        int end = max - 1;
        if (end > 0 && Character.isHighSurrogate(flat.charAt(end - 1))) {
            end--; // not half an emoji, which prints as '?'
        }
        return flat.substring(0, end) + "…";
    }
}
