/*
 * Writes event-ids.golden.json: the eventIds the Java SDK (client/) derives, so that the TypeScript
 * SDK's test (test/event-ids.test.ts) can check it derives the same ones for the same inputs.
 *
 * The values come from the Java SDK's own code paths: EventIds.of for appends, and for creates the
 * body the Java client really sends (captured by a JDK HttpServer on 127.0.0.1), whose eventId is
 * derived from the whole request as Jackson writes it. Re-run after changing either SDK's derivation
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
import dev.tether.client.EventIds;
import dev.tether.client.NewSession;
import dev.tether.client.RetryPolicy;
import dev.tether.client.TetherClient;
import dev.tether.client.TetherOptions;
import dev.tether.client.ToolMode;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

public class GenerateGolden {

    /** A create's inputs, as the TypeScript test feeds them to its NewSession (absent fields left out). */
    private static ObjectNode input(ObjectMapper mapper, String sessionId, String objective, String modelId, String toolMode, String systemPrompt,
                                    List<String> constraints, String harnessVersion, Long tokenBudget) {
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
                    input(mapper, "budget-1", "budget", "m", "WRITE", null, List.of(), null, 9_007_199_254_740_991L));
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
                client.createSession(request);
                ObjectNode n = creates.addObject();
                n.set("request", in);
                n.put("body", body.get());
                n.put("eventId", mapper.readTree(body.get()).get("eventId").asText());
            }
        } finally {
            server.stop(0);
        }
        // every non-ASCII character as a \\uXXXX escape: the file is plain ASCII, and a lone surrogate survives as one
        var ascii = new ObjectMapper();
        ascii.getFactory().configure(JsonWriteFeature.ESCAPE_NON_ASCII.mappedFeature(), true);
        System.out.println(ascii.writerWithDefaultPrettyPrinter().writeValueAsString(out));
    }
}
