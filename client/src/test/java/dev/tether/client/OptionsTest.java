package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Option and request values: defaults, validation before any call, immutability. */
class OptionsTest {

    @Test
    void local_pointsAtBinRun_withDefaults() {
        TetherOptions options = TetherOptions.local();
        assertThat(options.sessionsUri()).hasToString("http://127.0.0.1:8080");
        assertThat(options.projectorUri()).hasToString("http://127.0.0.1:8081");
        assertThat(options.approvalsUri()).hasToString("http://127.0.0.1:8082");
        assertThat(options.token()).isEmpty();
        assertThat(options.timeout()).isEqualTo(TetherOptions.DEFAULT_TIMEOUT);
        assertThat(options.retry()).isEqualTo(RetryPolicy.defaults());
    }

    @Test
    void withX_returnsACopy_andLeavesTheOriginalAlone() {
        TetherOptions base = TetherOptions.local();
        TetherOptions changed = base.withToken("dev-acme-agent").withTimeout(Duration.ofSeconds(3)).withRetry(RetryPolicy.none());
        assertThat(base.token()).isEmpty();
        assertThat(base.timeout()).isEqualTo(TetherOptions.DEFAULT_TIMEOUT);
        assertThat(changed.token()).contains("dev-acme-agent");
        assertThat(changed.timeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(changed.retry().maxAttempts()).isEqualTo(1);
        assertThat(changed).isEqualTo(TetherOptions.local().withToken("dev-acme-agent").withTimeout(Duration.ofSeconds(3))
                .withRetry(RetryPolicy.none()));
    }

    @Test
    void of_dropsTrailingSlashes_andRefusesWhatIsNotABaseUrl() {
        URI ok = URI.create("https://tether.example/api/");
        assertThat(TetherOptions.of(ok, ok, ok).sessionsUri()).hasToString("https://tether.example/api");
        for (String bad : new String[] {"ftp://host", "/relative", "http://host/?q=1", "http://host/#f", "http://user:pw@host",
                "mailto:someone@example.com"}) {
            assertThatThrownBy(() -> TetherOptions.of(URI.create(bad), ok, ok)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void tokenAndTimeouts_areValidated() {
        TetherOptions o = TetherOptions.local();
        assertThatThrownBy(() -> o.withToken(" ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> o.withToken("a b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> o.withToken("abc\r\nX-Injected: 1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> o.withTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> o.withConnectTimeout(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> o.withRetry(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void toString_neverShowsTheToken() {
        assertThat(TetherOptions.local().withToken("secret-token-123").toString()).doesNotContain("secret-token-123").contains("(set)");
    }

    @Test
    void retryPolicy_doublesItsBackoff_upToTheCap() {
        RetryPolicy p = RetryPolicy.of(5, Duration.ofMillis(100), Duration.ofMillis(350));
        assertThat(p.backoff(1)).isEqualTo(Duration.ofMillis(100));
        assertThat(p.backoff(2)).isEqualTo(Duration.ofMillis(200));
        assertThat(p.backoff(3)).isEqualTo(Duration.ofMillis(350));
        assertThat(p.backoff(30)).isEqualTo(Duration.ofMillis(350));
        assertThatThrownBy(() -> RetryPolicy.of(0, Duration.ZERO, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RetryPolicy.of(3, Duration.ofSeconds(2), Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class);
        assertThat(RetryPolicy.defaults().withMaxAttempts(2).maxAttempts()).isEqualTo(2);
    }

    @Test
    void requests_refuseBadValues_beforeAnyCall() {
        assertThatThrownBy(() -> NewSession.of("", "m", ToolMode.WRITE)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NewSession.of("o", "m", ToolMode.WRITE).withSessionId("has space")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NewSession.of("o", "m", ToolMode.WRITE).withSessionId("-leading-dash")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NewSession.of("o", "m", ToolMode.WRITE).withTokenBudget(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> AppendBatch.forStep("s")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one");
        assertThatThrownBy(() -> AppendBatch.forStep("s", NewEvent.userMessage("x")).expectingSeq(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ClaimRequest.of("w", "v1").withRequestId("no spaces please")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> HarnessVersionUpdate.active("v2", 101)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> HarnessVersionUpdate.active("v 2", 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ApprovalDecision.deny(" ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ReadAt.seq(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ContextQuery.of(ContextFormat.OPENAI).withMaxTokens(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NewEvent.of("user_message", java.util.Map.of("eventId", "x"))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void requests_areImmutable() {
        NewSession base = NewSession.of("objective", "model-x", ToolMode.READ_ONLY);
        NewSession named = base.withSessionId("s-1").withTokenBudget(1000);
        assertThat(base.sessionId()).isEmpty();
        assertThat(base.tokenBudget()).isEmpty();
        assertThat(named.sessionId()).contains("s-1");

        AppendBatch batch = AppendBatch.forStep("turn-1", NewEvent.userMessage("x"));
        AppendBatch fenced = batch.withEpoch(2).expectingSeq(7);
        assertThat(batch.epoch()).isEmpty();
        assertThat(fenced.epoch()).hasValue(2);
        assertThat(fenced.expectedSeq()).hasValue(7);

        NewEvent event = NewEvent.stepCompleted(2, "tests pass", true);
        NewEvent withEvidence = event.with("evidence", "commit 3f2a1c");
        assertThat(event.fields().has("evidence")).isFalse();
        assertThat(withEvidence.fields().get("evidence").asText()).isEqualTo("commit 3f2a1c");
        event.fields().put("note", "changed through a copy");
        assertThat(event.fields().get("note").asText()).isEqualTo("tests pass");
    }

    @Test
    void newEvents_haveTheWireShapeOfArchitecture4() {
        NewEvent message = NewEvent.assistantMessage("Reading the file first.",
                java.util.List.of(new ToolCall("call-1", "read_file", "{\"path\":\"src/Foo.java\"}")), new TokenUsage(812, 40));
        assertThat(message.toJson("id-1").toString()).isEqualTo("{\"eventId\":\"id-1\",\"type\":\"assistant_message\","
                + "\"content\":\"Reading the file first.\",\"toolCalls\":[{\"callId\":\"call-1\",\"tool\":\"read_file\","
                + "\"argumentsJson\":\"{\\\"path\\\":\\\"src/Foo.java\\\"}\"}],\"usage\":{\"inputTokens\":812,\"outputTokens\":40}}");
        assertThat(NewEvent.planUpdated(java.util.List.of(PlanItem.inProgress("rename"), PlanItem.pending("callers"))).toJson("p").toString())
                .isEqualTo("{\"eventId\":\"p\",\"type\":\"plan_updated\",\"items\":[{\"text\":\"rename\",\"status\":\"IN_PROGRESS\"},"
                        + "{\"text\":\"callers\",\"status\":\"PENDING\"}]}");
        assertThat(NewEvent.contextCompacted(12, "so far", java.util.List.of(2L, 3L)).toJson("c").toString())
                .isEqualTo("{\"eventId\":\"c\",\"type\":\"context_compacted\",\"throughSeq\":12,\"summary\":\"so far\",\"summarySourceSeqs\":[2,3]}");
        NewEvent parsed = NewEvent.fromJson("{\"eventId\":\"x-1\",\"type\":\"user_message\",\"content\":\"hi\"}");
        assertThat(parsed.eventId()).contains("x-1");
        assertThat(parsed).isEqualTo(NewEvent.userMessage("hi").withEventId("x-1"));
    }

    @Test
    void aFrameworkState_hasTheWireShapeOfArchitecture4_itsContentAsJsonText() {
        NewEvent state = NewEvent.frameworkState("langgraph", "checkpoint", "[\"\",\"cp-1\"]", "{\"v\":1,\"versions_seen\":{}}");

        assertThat(state.type()).isEqualTo("framework_state");
        assertThat(state.toJson("f-1").toString()).isEqualTo("{\"eventId\":\"f-1\",\"type\":\"framework_state\",\"framework\":\"langgraph\","
                + "\"kind\":\"checkpoint\",\"key\":\"[\\\"\\\",\\\"cp-1\\\"]\",\"content\":\"{\\\"v\\\":1,\\\"versions_seen\\\":{}}\"}");
        assertThat(state.toString()).doesNotContain("versions_seen");
        assertThatThrownBy(() -> NewEvent.frameworkState(" ", "checkpoint", "k", "{}")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("framework");
        assertThatThrownBy(() -> NewEvent.frameworkState("langgraph", null, "k", "{}")).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> NewEvent.frameworkState("langgraph", "checkpoint", "", "{}")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key");
        assertThatThrownBy(() -> NewEvent.frameworkState("langgraph", "checkpoint", "k", null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("contentJson");
    }

    @Test
    void newEvent_toString_namesFieldsButNeverTheirContent() {
        assertThat(NewEvent.userMessage("my token is ghp_secret").toString()).contains("user_message", "content").doesNotContain("ghp_secret");
    }
}
