package dev.tether.session.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.core.event.JsonSyntax;
import org.junit.jupiter.api.Test;

/** What {@link Ingress#scrubTree} leaves of a request body: no secret, and JSON text still JSON text. */
class IngressScrubbingTest {

    private final ObjectMapper mapper = new ObjectMapper();

    @Test
    void aToolCallsArguments_stayJson_whenAnArgumentNamedLikeASecretIsNoString() throws Exception {
        JsonNode body = mapper.readTree("""
                {"events":[{"eventId":"e1","type":"assistant_message","content":"searching","toolCalls":[
                  {"callId":"c1","tool":"search","argumentsJson":"{\\"query\\":\\"tether\\",\\"page_token\\":null}"},
                  {"callId":"c2","tool":"http","argumentsJson":"{\\"url\\":\\"https://x\\",\\"api_key\\":12345678}"}]}]}""");

        int redactions = Ingress.scrubTree(body);

        JsonNode calls = body.at("/events/0/toolCalls");
        String search = calls.get(0).path("argumentsJson").textValue();
        String http = calls.get(1).path("argumentsJson").textValue();
        assertThat(JsonSyntax.isValue(search)).as(search).isTrue();
        assertThat(JsonSyntax.isValue(http)).as(http).isTrue();
        assertThat(mapper.readTree(search).path("query").textValue()).isEqualTo("tether");
        assertThat(mapper.readTree(search).path("page_token").isNull()).as("a cursor, and none: as it was").isTrue();
        assertThat(mapper.readTree(http).path("url").textValue()).isEqualTo("https://x");
        assertThat(http).doesNotContain("12345678");
        assertThat(redactions).isEqualTo(1);
    }

    @Test
    void aToolCallsArgumentsThatAreNoJson_areScrubbedAsText() throws Exception {
        JsonNode body = mapper.readTree("""
                {"toolCalls":[{"callId":"c1","tool":"t","argumentsJson":"not json: ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"}]}""");

        assertThat(Ingress.scrubTree(body)).isEqualTo(1);
        assertThat(body.at("/toolCalls/0/argumentsJson").textValue()).isEqualTo("not json: [REDACTED:github-token]");
    }

    @Test
    void aToolsResult_staysJson_whenAFieldNamedLikeASecretIsNoString() throws Exception {
        JsonNode body = mapper.readTree("""
                {"events":[{"eventId":"e1","type":"tool_result","callId":"c1","status":"OK",
                  "content":"{\\"service\\":\\"billing\\",\\"api_key\\":12345678,\\"next_page_token\\":\\"p2\\",\\"owner\\":null}"}]}""");

        int redactions = Ingress.scrubTree(body);

        String content = body.at("/events/0/content").textValue();
        assertThat(JsonSyntax.isValue(content)).as(content).isTrue();
        JsonNode result = mapper.readTree(content);
        assertThat(result.path("service").textValue()).isEqualTo("billing");
        assertThat(result.path("api_key").textValue()).isEqualTo("[REDACTED:secret-assignment]");
        assertThat(result.path("next_page_token").textValue()).as("a cursor, kept").isEqualTo("p2");
        assertThat(result.path("owner").isNull()).isTrue();
        assertThat(redactions).isEqualTo(1);
    }

    @Test
    void aMessagesText_isScrubbedAsText_andAJsonAnswerStaysJson() throws Exception {
        JsonNode body = mapper.readTree("""
                {"events":[
                  {"eventId":"e1","type":"user_message","content":"my password: 12345678, and the key ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"},
                  {"eventId":"e2","type":"assistant_message","content":"{\\"answer\\":\\"done\\",\\"password\\":12345678}"},
                  {"eventId":"e3","type":"plan_updated","content":"{\\"password\\":12345678}"}]}""");

        int redactions = Ingress.scrubTree(body);

        String said = body.at("/events/0/content").textValue();
        assertThat(said).doesNotContain("12345678").doesNotContain("ghp_").startsWith("my password");
        String answer = body.at("/events/1/content").textValue();
        assertThat(JsonSyntax.isValue(answer)).as(answer).isTrue();
        assertThat(mapper.readTree(answer).path("answer").textValue()).isEqualTo("done");
        assertThat(answer).doesNotContain("12345678");
        // an event whose content is no JSON text Tether reads (here a made-up one): scrubbed as text, as before
        assertThat(body.at("/events/2/content").textValue()).doesNotContain("12345678");
        assertThat(redactions).isEqualTo(4);
    }
}
