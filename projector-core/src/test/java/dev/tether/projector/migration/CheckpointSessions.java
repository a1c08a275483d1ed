package dev.tether.projector.migration;

import dev.tether.avro.Checkpoint;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.projector.avro.CheckpointAvro;
import dev.tether.projector.domain.Projection;
import dev.tether.projector.domain.SessionProjection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Sessions with tool calls, folded by today's projection, for the migration tests. */
final class CheckpointSessions {

    private final String sessionId;
    private final List<Event> events = new ArrayList<>();

    CheckpointSessions(String sessionId) {
        this.sessionId = sessionId;
        add(new SessionStarted("Fix the flaky test.", "You are careful.", "model-1", "h-1", ToolMode.WRITE, List.of("no force pushes"),
                null, null));
    }

    CheckpointSessions add(EventPayload payload) {
        long seq = events.size() + 1L;
        events.add(new Event(sessionId + "-" + seq, sessionId, "acme", seq, Instant.parse("2026-11-29T10:00:00Z").plusSeconds(seq),
                new Actor(ActorKind.SYSTEM, "acme-agent"), "h-1", payload));
        return this;
    }

    /** A call asked for, authorized by policy and reported with {@code status}. */
    CheckpointSessions call(String callId, ToolStatus status) {
        long requestSeq = events.size() + 1L;
        add(new AssistantMessage("calling " + callId, null, List.of(new ToolCall(callId, "read_file", "{}")), new TokenUsage(10, 1)));
        add(new ToolCallAuthorized(callId, AuthorizationBasis.POLICY));
        return add(new ToolResult(callId, sessionId + "/" + requestSeq + "/" + callId, status, "result of " + callId, null));
    }

    List<Event> events() {
        return List.copyOf(events);
    }

    SessionProjection fold() {
        SessionProjection state = null;
        for (Event e : events) {
            state = Projection.evolve(state, e, 0, e.seq() - 1);
        }
        return state;
    }

    /** Today's fold as stored, under {@code schemaVersion}. */
    Checkpoint storedAs(int schemaVersion) {
        return Checkpoint.newBuilder(CheckpointAvro.toAvro(fold())).setSchemaVersion(schemaVersion).build();
    }
}
