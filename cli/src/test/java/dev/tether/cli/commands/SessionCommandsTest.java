package dev.tether.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.cli.CliRun;
import dev.tether.cli.FakeServices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code tether sessions}, {@code context} and {@code recovery} against the services' real answers, served by a fake. */
class SessionCommandsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final FakeServices services = new FakeServices();

    @AfterEach
    void stop() {
        services.close();
    }

    @Test
    void sessionsList_printsATable_withTheAgentsDevKey() {
        services.onResource("GET /v1/sessions?limit=500", 200, "sessions.json");

        CliRun run = CliRun.run(services.env(), "sessions", "list");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out().lines()).containsExactly(
                "SESSION  STATUS  LAST SEQ  EPOCH  WORKER    VERSION  MODEL            OWNER       PARENT",
                "demo-1   open    12        1      worker-a  v1       claude-sonnet-4  acme-agent  -",
                "demo-2   open    2         0      -         v1       claude-sonnet-4  acme-agent  -");
        assertThat(run.err()).isEmpty();
        assertThat(services.requests()).singleElement().extracting(FakeServices.Request::authorization).isEqualTo("Bearer dev-acme-agent");
    }

    @Test
    void sessionsList_withJsonAndAStatus_printsTheSessionsInTheApisFieldNames_withTheTokenGiven() throws Exception {
        services.onResource("GET /v1/sessions?status=open&limit=500", 200, "sessions.json");

        CliRun run = CliRun.run(services.env("TETHER_TOKEN", "dev-acme-admin"), "sessions", "list", "--status", "open", "--json");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode out = JSON.readTree(run.out());
        assertThat(out.get("sessions")).hasSize(2);
        assertThat(out.get("sessions").get(0).get("sessionId").asText()).isEqualTo("demo-1");
        assertThat(out.get("sessions").get(0).get("workerId").asText()).isEqualTo("worker-a");
        assertThat(out.get("sessions").get(1).has("workerId")).isFalse();
        assertThat(services.requests().get(0).authorization()).isEqualTo("Bearer dev-acme-admin");
    }

    @Test
    void sessionsListAndShow_withJson_keepWhenTheSessionStarted_asTheApiSaysIt() throws Exception {
        String session = "{\"sessionId\":\"demo-1\",\"tenantId\":\"acme\",\"owner\":\"acme-agent\",\"status\":\"open\",\"lastSeq\":12,"
                + "\"epoch\":1,\"workerId\":\"worker-a\",\"modelId\":\"claude-sonnet-4\",\"harnessVersion\":\"v1\","
                + "\"sessionStartedAt\":\"2026-11-29T12:59:24.648Z\"}";
        services.on("GET /v1/sessions?limit=500", 200, "{\"sessions\":[" + session + "]}")
                .on("GET /v1/sessions/demo-1", 200, session)
                .on("GET /v1/sessions/demo-1/checkpoint", 404, "{\"error\":\"not_found\",\"message\":\"no checkpoint\"}");

        CliRun list = CliRun.run(services.env(), "sessions", "list", "--json");
        CliRun show = CliRun.run(services.env(), "sessions", "show", "demo-1", "--json");

        assertThat(list.exitCode()).as(list.toString()).isZero();
        assertThat(show.exitCode()).as(show.toString()).isZero();
        assertThat(JSON.readTree(list.out()).get("sessions").get(0)).isEqualTo(JSON.readTree(session));
        assertThat(JSON.readTree(show.out()).get("session")).isEqualTo(JSON.readTree(session));
    }

    @Test
    void sessionsList_withNoSessions_saysSoOnStderr_andPrintsNoTable() {
        services.on("GET /v1/sessions?limit=500", 200, "{\"sessions\":[]}");

        CliRun run = CliRun.run(services.env(), "sessions", "list");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo("no sessions\n");
    }

    @Test
    void sessionsShow_combinesTheSessionAndItsCheckpoint() {
        services.onResource("GET /v1/sessions/demo-1", 200, "session-demo-1.json")
                .onResource("GET /v1/sessions/demo-1/checkpoint", 200, "checkpoint-demo-1.json");

        CliRun run = CliRun.run(services.env(), "sessions", "show", "demo-1");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).contains(
                "session        demo-1\n",
                "status         open (ACTIVE)\n",
                "pinned to      v1, claude-sonnet-4\n",
                "claimed by     worker-a (epoch 1)\n",
                "objective      Rename Foo to Bar in src/\n",
                "tokens         1842 in, 92 out\n",
                "plan           1. rename the class (IN_PROGRESS)\n               2. fix the callers (PENDING)\n",
                "tool calls     call-1  read_file  ERROR  (requested at seq 5, result at seq 7)\n");
    }

    @Test
    void sessionsShow_ofAnUnknownSession_failsWithOneLine() {
        services.onResource("GET /v1/sessions/nope", 404, "not-found.json");

        CliRun run = CliRun.run(services.env(), "sessions", "show", "nope");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.out()).isEmpty();
        assertThat(run.errLines()).containsExactly(
                "tether: session nope not found (it does not exist for this token's tenant, or was erased)");
    }

    @Test
    void sessionsTail_withoutFollowing_pagesThroughTheLog_oneLinePerEvent() {
        services.onResource("GET /v1/sessions/demo-1/events?fromSeq=1&limit=500", 200, "events-demo-1-from-1.json")
                .onResource("GET /v1/sessions/demo-1/events?fromSeq=9&limit=500", 200, "events-demo-1-from-9.json");

        CliRun run = CliRun.run(services.env(), "sessions", "tail", "demo-1", "--no-follow");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        var lines = run.out().lines().toList();
        assertThat(lines).hasSize(13);
        assertThat(lines.get(0)).startsWith("  SEQ  TIME").endsWith("SUMMARY");
        assertThat(lines.get(1)).startsWith("    1  2026-11-29T12:39:50.625Z  session_started").endsWith(
                "\"Rename Foo to Bar in src/\" (claude-sonnet-4, v1, WRITE)");
        assertThat(lines.get(5)).contains("assistant_message", "\"Reading the file first.\" -> call-1 read_file {\"path\":\"src/Foo.java\"}");
        assertThat(lines.get(9)).contains("approval_requested", "SYSTEM approval-service", "call-2 run_command: \"ls src && make test\"");
        assertThat(lines.get(12)).startsWith("   12").contains("tool_result", "call-2 ERROR: \"ls: cannot access 'src'");
    }

    @Test
    void sessionsTail_withoutFollowing_stopsWithOneLine_whenAPageSaysToGoBack_insteadOfPrintingItForEver() {
        String page = FakeServices.resource("events-demo-1-from-9.json").replace("\"nextSeq\":13", "\"nextSeq\":9")
                .replace("\"lastSeq\":12", "\"lastSeq\":20");
        services.on("GET /v1/sessions/demo-1/events?fromSeq=9&limit=500", 200, page);

        CliRun run = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(10),
                () -> CliRun.run(services.env(), "sessions", "tail", "demo-1", "--no-follow", "--from-seq", "9"));

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
        assertThat(run.out().lines()).hasSize(5); // the header and seqs 9 to 12, once
        assertThat(run.errLines()).containsExactly("tether: the session-service's page of demo-1 from seq 9 ends at seq 12 but says to "
                + "go on from seq 9; stopped rather than print events again");
    }

    @Test
    void sessionsTail_withJson_printsOneEventPerLine_asTheApiReturnsIt() throws Exception {
        services.onResource("GET /v1/sessions/demo-1/events?fromSeq=9&limit=500", 200, "events-demo-1-from-9.json");

        CliRun run = CliRun.run(services.env(), "sessions", "tail", "demo-1", "--no-follow", "--from-seq", "9", "--json");

        var lines = run.out().lines().toList();
        assertThat(lines).hasSize(4);
        JsonNode first = JSON.readTree(lines.get(0));
        assertThat(first.get("seq").asLong()).isEqualTo(9);
        assertThat(first.get("type").asText()).isEqualTo("approval_requested");
        assertThat(first.get("shown").asText()).isEqualTo("ls src && make test");
    }

    @Test
    void sessionsFork_postsTheSeq_andPrintsTheNewSession() throws Exception {
        services.on("POST /v1/sessions/demo-1/fork", 201,
                "{\"sessionId\":\"demo-1-b\",\"parentSessionId\":\"demo-1\",\"atSeq\":5,\"seq\":1,\"harnessVersion\":\"v1\",\"modelId\":\"claude-sonnet-4\"}");

        CliRun run = CliRun.run(services.env(), "sessions", "fork", "demo-1", "--at-seq", "5", "--new-id", "demo-1-b");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).isEqualTo("forked demo-1 at seq 5 into demo-1-b (pinned to v1, claude-sonnet-4)\n");
        JsonNode body = JSON.readTree(services.requests().get(0).body());
        assertThat(body.get("atSeq").asLong()).isEqualTo(5);
        assertThat(body.get("sessionId").asText()).isEqualTo("demo-1-b");
    }

    @Test
    void sessionsErase_refused_printsTheServicesReason() {
        services.on("DELETE /v1/sessions/demo-1", 403, "{\"error\":\"forbidden\",\"message\":\"only the owner or an admin may erase a session\"}");

        CliRun run = CliRun.run(services.env(), "sessions", "erase", "demo-1");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.errLines()).containsExactly(
                "tether: erasing demo-1 was refused (403 forbidden): only the owner or an admin may erase a session");
        assertThat(services.requests(("DELETE"), "/v1/sessions/demo-1")).hasSize(1); // never retried
    }

    @Test
    void context_rendersEachMessage_andMarksTheEndOfTheStablePrefix() {
        services.onResource("GET /v1/sessions/demo-1/context?format=openai&atSeq=9&maxTokens=1000", 200, "context-demo-1-openai-at-9.json");

        CliRun run = CliRun.run(services.env(), "context", "demo-1", "--at-seq", "9", "--max-tokens", "1000");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).startsWith("openai context of demo-1 at seq 9: 397 tokens (o200k_base) of a 200000-token window\n\n[1] system\n"
                        + "    You are a careful engineer.\n")
                .contains("[6] assistant\n    Reading the file first.\n    -> call-1 read_file {\"path\":\"src/Foo.java\"}\n")
                .contains("[7] tool (call-1)\n")
                .contains("---- the 7 messages above stay byte-identical as the session goes on (cacheable)\n\n[8] assistant\n")
                .contains("[9] tool (call-2)\n    {\"error\":\"cancelled_by_user\"}\n");
    }

    @Test
    void context_inTheAnthropicFormat_showsTheSystemPromptApart_andTheBlocks() {
        services.onResource("GET /v1/sessions/demo-1/context?format=anthropic&atSeq=9", 200, "context-demo-1-anthropic-at-9.json");

        CliRun run = CliRun.run(services.env(), "context", "demo-1", "--format", "anthropic", "--at-seq", "9");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).contains("[system]\n    You are a careful engineer.\n\n[1] user\n    Rename Foo to Bar in src/\n    ·\n")
                .contains("-> call-1 read_file {\"path\":\"src/Foo.java\"}")
                .contains("<- call-1 (error): {\"error\":\"argument path: no such file: src/Foo.java\",\"status\":\"ERROR\"}");
    }

    @Test
    void context_withJson_printsTheProjectorsAnswerAsItIs() throws Exception {
        services.onResource("GET /v1/sessions/demo-1/context?format=openai", 200, "context-demo-1-openai-at-9.json");

        CliRun run = CliRun.run(services.env(), "context", "demo-1", "--json");

        assertThat(JSON.readTree(run.out())).isEqualTo(JSON.readTree(FakeServices.resource("context-demo-1-openai-at-9.json")));
    }

    @Test
    void recovery_printsTheReport() {
        services.onResource("GET /v1/sessions/demo-1/recovery", 200, "recovery-demo-1.json");

        CliRun run = CliRun.run(services.env(), "recovery", "demo-1");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).contains(
                "session            demo-1 (tenant acme, owner acme-agent)\n",
                "claimed by         worker-a (epoch 1)\n",
                "tool calls         confirmed 2, cancelled 0, unknown 0, in flight 0 (whole session: 0 ok, 2 error, 0 cancelled, 0 unknown)\n",
                "                   confirmed  call-1 read_file ERROR (requested at seq 5, result at seq 7, key demo-1/5/call-1)\n",
                "authority          none\n",
                "next safe actions  - ");
    }

    @Test
    void aRoleTheServiceRefuses_failsWithOneLine_sayingWhichTokenItNeeds() {
        services.onResource("GET /v1/sessions?limit=500", 403, "forbidden.json");

        CliRun run = CliRun.run(services.env("TETHER_TOKEN", "dev-operator"), "sessions", "list");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.errLines()).containsExactly("tether: listing sessions failed: 403 forbidden: the caller's role does not allow this; "
                + "this needs an agent or admin token (e.g. dev-acme-agent)");
    }

    @Test
    void storedTextWithTerminalEscapes_isPrintedInert_inTheTableTheTailAndAnError() {
        String esc = "\\u001b]0;owned\\u0007\\u001b[2J";
        services.on("GET /v1/sessions?limit=500", 200, "{\"sessions\":[{\"sessionId\":\"s" + esc + "\",\"tenantId\":\"acme\","
                        + "\"owner\":\"acme-agent\",\"status\":\"open\",\"lastSeq\":1,\"epoch\":0,\"modelId\":\"m\\r\\u009b1m\","
                        + "\"harnessVersion\":\"v1\"}]}")
                .on("GET /v1/sessions/s/events?fromSeq=1&limit=500", 200, "{\"events\":[{\"seq\":1,\"eventId\":\"e1\","
                        + "\"type\":\"tool_result\",\"sessionId\":\"s\",\"occurredAt\":\"2026-11-29T12:59:24.648Z\","
                        + "\"actor\":{\"kind\":\"TOOL\",\"id\":\"tool-executor\"},\"harnessVersion\":\"v1\",\"callId\":\"c1\","
                        + "\"status\":\"OK\",\"content\":\"done" + esc + "\"}],\"lastSeq\":1,\"nextSeq\":2}")
                .on("DELETE /v1/sessions/s", 403, "{\"error\":\"forbidden\",\"message\":\"not yours:" + esc + "\"}");

        CliRun list = CliRun.run(services.env(), "sessions", "list");
        CliRun tail = CliRun.run(services.env(), "sessions", "tail", "s", "--no-follow");
        CliRun erase = CliRun.run(services.env(), "sessions", "erase", "s");

        for (CliRun run : java.util.List.of(list, tail, erase)) {
            assertThat(run.out() + run.err()).as(run.toString()).doesNotContain("\u001b", "\u0007", "\r", "\u009b");
        }
        assertThat(list.out().lines()).element(1).asString()
                .startsWith("s\\u001B]0;owned\\u0007\\u001B[2J  open").contains("m\\u000D\\u009B1m");
        assertThat(tail.out().lines()).element(1).asString().endsWith("c1 OK: \"done\\u001B]0;owned\\u0007\\u001B[2J\"");
        assertThat(erase.errLines()).containsExactly(
                "tether: erasing s was refused (403 forbidden): not yours:\\u001B]0;owned\\u0007\\u001B[2J");
    }

    @Test
    void tail_stopsFollowing_onceStdoutIsClosed_asWhenPipedIntoHead() {
        String event = "{\"seq\":1,\"eventId\":\"e1\",\"type\":\"user_message\",\"sessionId\":\"s\",\"occurredAt\":"
                + "\"2026-11-29T12:59:24.648Z\",\"actor\":{\"kind\":\"USER\",\"id\":\"acme-agent\"},\"harnessVersion\":\"v1\","
                + "\"content\":\"hi\"}";
        // the stream delivers seq 1 and ends; were it followed on, the next connection's 404 would end the tail as an erasure
        services.on("GET /v1/sessions/s/events?fromSeq=1", 200, "id: 1\nevent: event\ndata: " + event + "\n\n");
        var closedPipe = new java.io.Writer() {
            @Override
            public void write(char[] chars, int offset, int length) throws java.io.IOException {
                throw new java.io.IOException("Broken pipe");
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        var err = new java.io.StringWriter();

        int exit = dev.tether.cli.TetherCli.commandLine(services.env()).setOut(new java.io.PrintWriter(closedPipe))
                .setErr(new java.io.PrintWriter(err, true)).execute("sessions", "tail", "s");

        assertThat(exit).as(err.toString()).isZero();
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void anUnreachableService_failsWithOneLine_afterBriefRetries() {
        services.close();

        CliRun run = CliRun.run(services.env(), "sessions", "list");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.errLines()).singleElement().asString()
                .startsWith("tether: GET /v1/sessions failed after 3 attempt(s): connection refused; is Tether running (bin/run)?");
    }
}
