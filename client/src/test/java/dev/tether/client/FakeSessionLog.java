package dev.tether.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * One session's log behind a {@link FakeServer}, for unit tests of {@link HarnessToolRunner}: the session-service's
 * events page, its SSE stream (catch-up, then live, as appends arrive) and its append with the two rules the runner
 * relies on — an eventId already in the log is a duplicate answered with its original seq, and a batch with a stale
 * epoch is 409 {@code stale_epoch}. Tests add the services' events themselves ({@link #add}) and may refuse an append
 * ({@link #refuseNext}) or react to one ({@link #onAppend}). Not the sequencer: the ITs run that.
 */
final class FakeSessionLog {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final String sessionId;
    private final List<ObjectNode> events = new ArrayList<>();
    private final Map<String, Long> seqById = new HashMap<>();
    private long epoch = 1;
    private Function<ObjectNode, String> refusal = e -> null;
    private boolean refuseEvery;
    private java.util.function.Consumer<ObjectNode> onAppend = e -> { };
    private String loseAnswerTo;
    private String unavailableFor;

    FakeSessionLog(String sessionId, FakeServer server) {
        this.sessionId = sessionId;
        server.otherwise(this::answer);
        add("session_claimed", "SYSTEM", Map.of("workerId", "worker-1", "epoch", 1, "harnessVersion", "v1"));
    }

    /** When the session's first event was appended: seq 1's occurredAt. */
    synchronized Instant startedAt() {
        return Instant.parse(events.get(0).get("occurredAt").asText());
    }

    /** A claim as {@link Claimed} of epoch {@code epoch} whose event is the log's last one, with the session's start. */
    synchronized Claimed claimed() {
        return new Claimed(sessionId, "worker-1", epoch, Optional.empty(), events.size(), Optional.of(startedAt()));
    }

    /** Another worker claims the session: later appends with an older epoch are 409 stale_epoch. */
    synchronized void claimByAnother() {
        epoch++;
        add("session_claimed", "SYSTEM", Map.of("workerId", "worker-2", "epoch", epoch, "harnessVersion", "v1"));
    }

    /** Appends an event as a service or the agent would; its seq. */
    synchronized long add(String type, String actorKind, Map<String, ?> fields) {
        ObjectNode e = MAPPER.createObjectNode();
        e.put("seq", events.size() + 1);
        e.put("eventId", "srv-" + (events.size() + 1));
        e.put("type", type);
        e.put("sessionId", sessionId);
        e.put("occurredAt", Instant.now().toString());
        e.putObject("actor").put("kind", actorKind).put("id", actorKind.equals("SYSTEM") || actorKind.equals("TOOL") || actorKind.equals("MODEL")
                ? "acme-agent" : "acme-approver");
        e.put("harnessVersion", "v1");
        fields.forEach((k, v) -> e.set(k, MAPPER.valueToTree(v)));
        events.add(e);
        notifyAll();
        return e.get("seq").asLong();
    }

    /** The assistant message asking for one call; its seq. */
    long ask(String callId, String tool, String argumentsJson) {
        return add("assistant_message", "MODEL", Map.of("content", "calling", "toolCalls",
                List.of(Map.of("callId", callId, "tool", tool, "argumentsJson", argumentsJson)), "usage", Map.of("inputTokens", 1, "outputTokens", 1)));
    }

    long authorize(String callId) {
        return add("tool_call_authorized", "SYSTEM", Map.of("callId", callId, "basis", Map.of("kind", "POLICY")));
    }

    /** The next append whose first event {@code refuse} answers non-null for is refused 400 illegal_event with that message. */
    synchronized void refuseNext(Function<ObjectNode, String> refuse) {
        this.refusal = refuse;
        this.refuseEvery = false;
    }

    /** Every append whose first event {@code refuse} answers non-null for is refused 400 illegal_event. */
    synchronized void refuseEvery(Function<ObjectNode, String> refuse) {
        this.refusal = refuse;
        this.refuseEvery = true;
    }

    /** Called (in the append, before it is answered) with each event appended by the client. */
    /** The next append holding an event of {@code type} is appended, and its answer lost: the connection closes unanswered. */
    synchronized void loseTheAnswerToTheNext(String type) {
        this.loseAnswerTo = type;
    }

    /** Every append holding an event of {@code type} is answered 503 and not appended (the sequencer unreachable); null: none. */
    synchronized void unavailableFor(String type) {
        this.unavailableFor = type;
    }

    synchronized void onAppend(java.util.function.Consumer<ObjectNode> listener) {
        this.onAppend = listener;
    }

    synchronized List<ObjectNode> events() {
        return List.copyOf(events);
    }

    synchronized List<ObjectNode> ofType(String type) {
        return events.stream().filter(e -> e.get("type").asText().equals(type)).toList();
    }

    private void answer(HttpExchange exchange) throws IOException, InterruptedException {
        String path = exchange.getRequestURI().getRawPath();
        if (!path.startsWith("/v1/sessions/" + sessionId + "/events")) {
            respond(exchange, 404, "{\"error\":\"not_found\",\"message\":\"session not found\"}");
        } else if (exchange.getRequestMethod().equals("POST")) {
            append(exchange);
        } else if ("text/event-stream".equals(exchange.getRequestHeaders().getFirst("Accept"))) {
            stream(exchange, query(exchange, "fromSeq", 1));
        } else {
            page(exchange, query(exchange, "fromSeq", 1), query(exchange, "limit", 500));
        }
    }

    private static long query(HttpExchange exchange, String name, long fallback) {
        String q = exchange.getRequestURI().getRawQuery();
        if (q != null) {
            for (String part : q.split("&")) {
                if (part.startsWith(name + "=")) {
                    return Long.parseLong(part.substring(name.length() + 1));
                }
            }
        }
        return fallback;
    }

    private void page(HttpExchange exchange, long fromSeq, long limit) throws IOException {
        ObjectNode page = MAPPER.createObjectNode();
        synchronized (this) {
            ArrayNode list = page.putArray("events");
            for (long s = fromSeq; s <= events.size() && list.size() < limit; s++) {
                list.add(events.get((int) s - 1));
            }
            page.put("lastSeq", events.size());
            page.put("nextSeq", fromSeq + list.size());
        }
        respond(exchange, 200, MAPPER.writeValueAsString(page));
    }

    private void stream(HttpExchange exchange, long fromSeq) throws IOException, InterruptedException {
        exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
        exchange.sendResponseHeaders(200, 0);
        long next = fromSeq;
        long end = System.nanoTime() + 20_000_000_000L;
        try (OutputStream out = exchange.getResponseBody()) {
            while (System.nanoTime() < end) {
                ObjectNode event;
                synchronized (this) {
                    while (next > events.size() && System.nanoTime() < end) {
                        wait(100);
                    }
                    if (next > events.size()) {
                        break;
                    }
                    event = events.get((int) next - 1);
                }
                out.write(("id:" + next + "\nevent:" + event.get("type").asText() + "\ndata:" + MAPPER.writeValueAsString(event) + "\n\n")
                        .getBytes(StandardCharsets.UTF_8));
                out.flush();
                next++;
            }
        } catch (IOException closed) {
            // the client closed the stream
        }
    }

    private void append(HttpExchange exchange) throws IOException {
        JsonNode body = MAPPER.readTree((String) exchange.getAttribute(FakeServer.BODY));
        String answer;
        int status = 200;
        synchronized (this) {
            JsonNode batchEpoch = body.get("epoch");
            ArrayNode proposed = (ArrayNode) body.get("events");
            String refused = refusal.apply((ObjectNode) proposed.get(0));
            boolean allKnown = true;
            for (JsonNode e : proposed) {
                allKnown &= seqById.containsKey(e.get("eventId").asText());
            }
            JsonNode batchStart = body.get("sessionStartedAt");
            if (unavailableFor != null && proposed.findValuesAsText("type").contains(unavailableFor)) {
                status = 503;
                answer = "{\"error\":\"unavailable\",\"message\":\"no verdict in time\"}";
            } else if (batchStart != null && !Instant.parse(batchStart.asText()).equals(startedAt())) {
                status = 404;
                answer = "{\"error\":\"not_found\",\"message\":\"session " + sessionId + " not found\"}";
            } else if (allKnown) {
                answer = answered(proposed, true);
            } else if (batchEpoch != null && batchEpoch.asLong() != epoch) {
                status = 409;
                answer = "{\"error\":\"stale_epoch\",\"message\":\"epoch " + batchEpoch.asLong() + " is stale\",\"epoch\":" + epoch + "}";
            } else if (refused != null) {
                if (!refuseEvery) {
                    refusal = e -> null;
                }
                status = 400;
                answer = "{\"error\":\"illegal_event\",\"message\":\"" + refused + "\",\"field\":\"events[0]\"}";
            } else {
                for (JsonNode p : proposed) {
                    ObjectNode e = ((ObjectNode) p).deepCopy();
                    String id = e.remove("eventId").asText();
                    String type = e.remove("type").asText();
                    Map<String, Object> fields = MAPPER.convertValue(e, Map.class);
                    long seq = add(type, type.equals("assistant_message") ? "MODEL" : "TOOL", fields);
                    events.get((int) seq - 1).put("eventId", id);
                    seqById.put(id, seq);
                    onAppend.accept(events.get((int) seq - 1));
                }
                answer = answered(proposed, false);
                if (loseAnswerTo != null && proposed.findValuesAsText("type").contains(loseAnswerTo)) {
                    loseAnswerTo = null;
                    exchange.close();
                    return;
                }
            }
        }
        respond(exchange, status, answer);
    }

    private String answered(ArrayNode proposed, boolean duplicate) {
        var out = new StringBuilder("{\"appended\":[");
        for (int i = 0; i < proposed.size(); i++) {
            String id = proposed.get(i).get("eventId").asText();
            out.append(i == 0 ? "" : ",").append("{\"eventId\":\"").append(id).append("\",\"seq\":").append(seqById.get(id))
                    .append(",\"duplicate\":").append(duplicate).append('}');
        }
        return out.append("],\"lastSeq\":").append(events.size()).append("}").toString();
    }

    private static void respond(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
