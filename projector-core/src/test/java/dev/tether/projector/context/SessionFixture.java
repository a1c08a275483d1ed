package dev.tether.projector.context;

import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.ContextCompacted;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.StepCompleted;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.TurnInterrupted;
import dev.tether.core.event.UserMessage;
import dev.tether.projector.domain.ContextInput;
import dev.tether.projector.domain.VolatileTail;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A session's log for tests: payloads appended as events with consecutive seqs, times and ids, and
 * the {@link ContextInput} a caller builds from the log as it stood at a seq.
 */
final class SessionFixture {

    static final String SYSTEM_PROMPT = "You are a careful software engineer.";
    static final String OBJECTIVE = "Fix the flaky test in OrderServiceTest.";
    static final Instant EPOCH = Instant.parse("2026-03-01T09:00:00Z");

    private final List<Event> events = new ArrayList<>();

    SessionFixture() {
        append(new SessionStarted(OBJECTIVE, SYSTEM_PROMPT, "model-1", "h-1", ToolMode.WRITE, List.of("no force pushes"), null, null));
    }

    SessionFixture append(EventPayload payload) {
        long seq = events.size() + 1L;
        events.add(new Event("event-" + seq, "session-1", "tenant-1", seq, EPOCH.plusSeconds(seq * 7),
                new Actor(ActorKind.SYSTEM, "tether"), "h-1", payload));
        return this;
    }

    SessionFixture user(String text) {
        return append(new UserMessage(text, null));
    }

    SessionFixture assistant(String text, ToolCall... calls) {
        return append(new AssistantMessage(text, null, List.of(calls), new TokenUsage(100, 10)));
    }

    SessionFixture result(String callId, ToolStatus status, String content) {
        return append(new ToolResult(callId, "key-" + callId, status, content, null));
    }

    SessionFixture interrupted(String partialText, String reason) {
        return append(new TurnInterrupted(partialText, reason));
    }

    static ToolCall call(String callId) {
        return new ToolCall(callId, "read_file", "{\"path\":\"" + callId + ".txt\"}");
    }

    long lastSeq() {
        return events.size();
    }

    List<Event> events() {
        return List.copyOf(events);
    }

    /** The input for the log as it stands. */
    ContextInput input() {
        return inputAt(events.size());
    }

    /**
     * The input for the log as it stood at {@code seq}, built as the caller does: the latest compaction
     * up to it, the facts captured with it, the events after its {@code throughSeq} (after the start
     * when never compacted), and the volatile values of that moment.
     */
    ContextInput inputAt(long seq) {
        List<Event> upTo = events.subList(0, (int) seq);
        ContextCompacted compaction = latestCompaction(upTo);
        long after = compaction == null ? 1 : compaction.throughSeq();
        List<Event> rendered = upTo.stream().filter(event -> event.seq() > after).toList();
        return new ContextInput((SessionStarted) events.get(0).payload(), compaction, facts(compaction), rendered, tail(upTo));
    }

    static ContextCompacted latestCompaction(List<Event> events) {
        ContextCompacted latest = null;
        for (Event event : events) {
            if (event.payload() instanceof ContextCompacted compaction) {
                latest = compaction;
            }
        }
        return latest;
    }

    private static String facts(ContextCompacted compaction) {
        return compaction == null
                ? "Facts:\n- objective: " + OBJECTIVE + "\n- constraint: no force pushes"
                : "Facts:\n- captured with the compaction through seq " + compaction.throughSeq();
    }

    private static VolatileTail tail(List<Event> events) {
        Event last = events.get(events.size() - 1);
        long input = 0;
        long output = 0;
        int step = 0;
        for (Event event : events) {
            if (event.payload() instanceof AssistantMessage message) {
                input += message.usage().inputTokens();
                output += message.usage().outputTokens();
            } else if (event.payload() instanceof StepCompleted completed) {
                step = completed.step();
            }
        }
        return new VolatileTail(last.seq(), step, input, output, "ACTIVE", null, List.of("event " + last.eventId()), last.occurredAt());
    }
}
