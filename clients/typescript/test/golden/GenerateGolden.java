/*
 * Writes event-ids.golden.json: the eventIds the Java SDK (client/) derives, so that the TypeScript
 * SDK's test (test/event-ids.test.ts) can check it derives the same ones for the same inputs.
 *
 * The values come from the Java SDK's own code paths: EventIds.of for appends, and for creates the
 * body the Java client really sends (captured by a JDK HttpServer on 127.0.0.1), whose eventId is
 * derived from the whole request as Jackson writes it. For harness-run tools, the Java
 * HarnessToolRunner itself runs calls against a small in-memory session log on a JDK HttpServer: the
 * log it started from and every append it sent (the bytes; the eventIds derived from the attempt's
 * key), so that the TypeScript runner can be checked to send the same appends from the same log. Re-run after changing either SDK's derivation
 * (it must never change: ids already in logs are compared with fresh ones). From the repository root,
 * with the modules built (bin/mvn -q install -DskipTests -pl client -am):
 *
 *   cp=client/target/tether-client-0.1.0-SNAPSHOT.jar:core/target/tether-core-0.1.0-SNAPSHOT.jar:$(
 *       bin/mvn -q dependency:build-classpath -pl client -DincludeScope=runtime -Dmdep.outputFile=/dev/stdout)
 *   java -cp "$cp" clients/typescript/test/golden/GenerateGolden.java > clients/typescript/test/golden/event-ids.golden.json
 */
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import dev.tether.client.Claimed;
import dev.tether.client.EventIds;
import dev.tether.client.HarnessTool;
import dev.tether.client.HarnessToolRunner;
import dev.tether.client.NewSession;
import dev.tether.client.Reconciliation;
import dev.tether.client.ToolOutput;
import dev.tether.client.RetryPolicy;
import dev.tether.client.TetherClient;
import dev.tether.client.TetherOptions;
import dev.tether.client.ToolMode;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

public class GenerateGolden {

    /** A create's inputs, as the TypeScript test feeds them to its NewSession (absent fields left out). */
    private static ObjectNode input(ObjectMapper mapper, String sessionId, String objective, String modelId, String toolMode, String systemPrompt,
                                    List<String> constraints, String harnessVersion, Long tokenBudget, HarnessTool... harnessTools) {
        ObjectNode n = mapper.createObjectNode();
        n.put("sessionId", sessionId);
        n.put("objective", objective);
        if (modelId != null) {
            n.put("modelId", modelId);
        }
        n.put("toolMode", toolMode);
        if (systemPrompt != null) {
            n.put("systemPrompt", systemPrompt);
        }
        ArrayNode list = n.putArray("constraints");
        constraints.forEach(list::add);
        if (harnessVersion != null) {
            n.put("harnessVersion", harnessVersion);
        }
        if (tokenBudget != null) {
            n.put("tokenBudget", tokenBudget);
        }
        if (harnessTools.length > 0) {
            ArrayNode tools = n.putArray("harnessTools");
            for (HarnessTool t : harnessTools) {
                tools.addObject().put("name", t.name()).put("mutating", t.mutating()).put("canReconcile", t.canReconcile())
                        .put("recordedOnly", t.recordedOnly());
            }
        }
        return n;
    }

    public static void main(String[] args) throws Exception {
        var mapper = new ObjectMapper();
        ObjectNode out = mapper.createObjectNode();
        out.put("namespace", EventIds.NAMESPACE.toString());

        ArrayNode appends = out.putArray("appends");
        String[][] steps = {
                {"demo-1", "turn-3", "0"}, {"demo-1", "turn-3", "1"}, {"demo-1", "turn-1", "0"},
                {"sdk-1", "call-42/result", "0"}, {"s", "step", "2147483647"},
                {"sitzung-ü", "schritt ß/ä", "7"}, {"会话", "第一步", "0"}, {"demo-1", "turn-\uD83D\uDE80", "3"},
                {"demo-1", "tab\there\nnew line", "1"}, {"demo-1", "lone-\uD800-surrogate", "0"},
                {"demo-1", "\u00A0", "0"}, {"550e8400-e29b-41d4-a716-446655440000", "plan-2", "12"},
        };
        for (String[] s : steps) {
            ObjectNode n = appends.addObject();
            n.put("sessionId", s[0]);
            n.put("stepKey", s[1]);
            n.put("index", Integer.parseInt(s[2]));
            n.put("eventId", EventIds.of(s[0], s[1], Integer.parseInt(s[2])));
        }

        AtomicReference<String> body = new AtomicReference<>();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            body.set(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            byte[] answer = "{\"sessionId\":\"x\",\"seq\":1,\"harnessVersion\":\"v1\",\"modelId\":\"m\",\"redactions\":0}"
                    .getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(201, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        server.start();
        URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
        ArrayNode creates = out.putArray("creates");
        try (TetherClient client = TetherClient.create(TetherOptions.of(uri, uri, uri).withToken("golden").withRetry(RetryPolicy.none()))) {
            List<ObjectNode> inputs = List.of(
                    input(mapper, "demo-1", "Rename Foo to Bar in src/", "claude-sonnet-4", "WRITE", null, List.of(), null, null),
                    input(mapper, "sdk-1", "Summarize the workspace", null, "READ_ONLY", null, List.of(), null, null),
                    input(mapper, "demo-2", "Rename Foo to Bar in src/", "claude-sonnet-4", "WRITE", "You are a careful engineer.",
                            List.of("keep the tests green", "no new deps"), "v2", 200_000L),
                    input(mapper, "escapes-1", "Quotes \" backslash \\ slash / tab\t newline\n cr\r bell\u0007 nul\u0000 us\u001f del\u007f",
                            "m", "WRITE", "\b\f ls\u2028ps\u2029 </script> & < >", List.of(), null, null),
                    input(mapper, "unicode-1", "Ünïcödé 会话 🚀 café", "m", "READ_ONLY", null,
                            List.of("emoji \uD83D\uDE00", "lone \uD800 high", "lone \uDC00 low"), null, null),
                    input(mapper, "budget-1", "budget", "m", "WRITE", null, List.of(), null, 9_007_199_254_740_991L),
                    input(mapper, "harness-1", "Record the payment", "claude-sonnet-4", "WRITE", null, List.of(), null, null,
                            HarnessTool.mutating("record_payment").reconcilable(), HarnessTool.readOnly("search_docs"),
                            HarnessTool.recorded("web_search", false)));
            for (ObjectNode in : inputs) {
                NewSession request = in.hasNonNull("modelId")
                        ? NewSession.of(in.get("objective").asText(), in.get("modelId").asText(), ToolMode.valueOf(in.get("toolMode").asText()))
                        : NewSession.of(in.get("objective").asText(), ToolMode.valueOf(in.get("toolMode").asText()));
                request = request.withSessionId(in.get("sessionId").asText());
                if (in.hasNonNull("systemPrompt")) {
                    request = request.withSystemPrompt(in.get("systemPrompt").asText());
                }
                var constraints = new java.util.ArrayList<String>();
                in.get("constraints").forEach(c -> constraints.add(c.asText()));
                request = request.withConstraints(constraints);
                if (in.hasNonNull("harnessVersion")) {
                    request = request.withHarnessVersion(in.get("harnessVersion").asText());
                }
                if (in.hasNonNull("tokenBudget")) {
                    request = request.withTokenBudget(in.get("tokenBudget").asLong());
                }
                if (in.has("harnessTools")) {
                    var tools = new ArrayList<HarnessTool>();
                    in.get("harnessTools").forEach(t -> tools.add(new HarnessTool(t.get("name").asText(), t.get("mutating").asBoolean(),
                            t.get("canReconcile").asBoolean(), t.get("recordedOnly").asBoolean())));
                    request = request.withHarnessTools(tools);
                }
                client.createSession(request);
                ObjectNode n = creates.addObject();
                n.set("request", in);
                n.put("body", body.get());
                n.put("eventId", mapper.readTree(body.get()).get("eventId").asText());
            }
        } finally {
            server.stop(0);
        }

        ArrayNode runs = out.putArray("harnessRuns");
        harnessRun(mapper, runs, "runs-an-authorized-call", false, null);
        harnessRun(mapper, runs, "reconciles-as-no-effect-then-runs-attempt-2", true, Reconciliation.noEffect("nothing under that key"));
        harnessRun(mapper, runs, "reconciles-as-took-effect", true, Reconciliation.tookEffect(ToolOutput.ok("found the payment")));
        harnessRun(mapper, runs, "reconciles-as-cannot-tell", true, Reconciliation.cannotTell("the ledger is down"));
        // every non-ASCII character as a \\uXXXX escape: the file is plain ASCII, and a lone surrogate survives as one
        var ascii = new ObjectMapper();
        ascii.getFactory().configure(JsonWriteFeature.ESCAPE_NON_ASCII.mappedFeature(), true);
        System.out.println(ascii.writerWithDefaultPrettyPrinter().writeValueAsString(out));
    }

    /**
     * The Java HarnessToolRunner runs call c1 (tool record_payment, reconcilable) of a session whose log is
     * session_claimed, the assistant_message asking for it, its tool_call_authorized and, when {@code started}, an
     * attempt 1 that started and has no result (which {@code found} reconciles). Records the log it started from and
     * every append body it sent, in order.
     */
    private static void harnessRun(ObjectMapper mapper, ArrayNode runs, String name, boolean started, Reconciliation found) throws Exception {
        String sessionId = "golden-" + name;
        List<ObjectNode> log = new ArrayList<>();
        event(mapper, log, sessionId, "session_claimed", "SYSTEM").put("workerId", "worker-1").put("epoch", 1).put("harnessVersion", "v1");
        ObjectNode ask = event(mapper, log, sessionId, "assistant_message", "MODEL").put("content", "paying");
        ask.putArray("toolCalls").addObject().put("callId", "c1").put("tool", "record_payment").put("argumentsJson", "{\"amount\":42}");
        ask.putObject("usage").put("inputTokens", 10).put("outputTokens", 5);
        event(mapper, log, sessionId, "tool_call_authorized", "SYSTEM").put("callId", "c1").putObject("basis").put("kind", "POLICY");
        if (started) {
            event(mapper, log, sessionId, "tool_call_started", "TOOL").put("callId", "c1").put("idempotencyKey", sessionId + "/2/c1")
                    .put("epoch", 1).put("attempt", 1);
        }
        ObjectNode run = runs.addObject();
        run.put("name", name);
        run.put("sessionId", sessionId);
        ArrayNode before = run.putArray("log");
        log.forEach(e -> before.add(e.deepCopy()));
        if (found != null) {
            run.put("reconciliation", found instanceof Reconciliation.NoEffect n ? "no_effect:" + n.reason()
                    : found instanceof Reconciliation.CannotTell c ? "cannot_tell:" + c.reason()
                    : "took_effect:" + ((Reconciliation.TookEffect) found).output().content().orElseThrow());
        }
        ArrayNode posts = run.putArray("appends");
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            synchronized (log) {
                if (exchange.getRequestMethod().equals("POST")) {
                    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                    posts.add(body);
                    var appended = mapper.createObjectNode();
                    ArrayNode list = appended.putArray("appended");
                    for (JsonNode p : mapper.readTree(body).get("events")) {
                        ObjectNode e = event(mapper, log, sessionId, p.get("type").asText(), "TOOL");
                        p.properties().forEach(f -> e.set(f.getKey(), f.getValue()));
                        list.addObject().put("eventId", p.get("eventId").asText()).put("seq", e.get("seq").asLong()).put("duplicate", false);
                    }
                    appended.put("lastSeq", log.size());
                    respond(exchange, mapper.writeValueAsString(appended));
                } else {
                    String q = exchange.getRequestURI().getRawQuery();
                    long from = 1;
                    long limit = 500;
                    for (String part : q == null ? new String[0] : q.split("&")) {
                        if (part.startsWith("fromSeq=")) {
                            from = Long.parseLong(part.substring(8));
                        } else if (part.startsWith("limit=")) {
                            limit = Long.parseLong(part.substring(6));
                        }
                    }
                    ObjectNode page = mapper.createObjectNode();
                    ArrayNode list = page.putArray("events");
                    for (long s = from; s <= log.size() && list.size() < limit; s++) {
                        list.add(log.get((int) s - 1));
                    }
                    page.put("lastSeq", log.size());
                    page.put("nextSeq", from + list.size());
                    respond(exchange, mapper.writeValueAsString(page));
                }
            }
        });
        server.start();
        URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
        try (TetherClient client = TetherClient.create(TetherOptions.of(uri, uri, uri).withToken("golden").withRetry(RetryPolicy.none()))) {
            HarnessToolRunner runner = HarnessToolRunner.builder(client, new Claimed(sessionId, "worker-1", 1, Optional.empty(), 1))
                    .tool(HarnessTool.mutating("record_payment").reconcilable(), call -> ToolOutput.ok("paid under " + call.idempotencyKey()),
                            call -> found)
                    .build();
            run.put("result", runner.run(2, "c1", java.time.Duration.ZERO).getClass().getSimpleName());
        } finally {
            server.stop(0);
        }
    }

    private static ObjectNode event(ObjectMapper mapper, List<ObjectNode> log, String sessionId, String type, String actorKind) {
        ObjectNode e = mapper.createObjectNode();
        e.put("seq", log.size() + 1);
        e.put("eventId", "srv-" + (log.size() + 1));
        e.put("type", type);
        e.put("sessionId", sessionId);
        e.put("occurredAt", "2026-12-01T19:00:00Z");
        e.putObject("actor").put("kind", actorKind).put("id", "acme-agent");
        e.put("harnessVersion", "v1");
        log.add(e);
        return e;
    }

    private static void respond(HttpExchange exchange, String body) throws java.io.IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }
}
