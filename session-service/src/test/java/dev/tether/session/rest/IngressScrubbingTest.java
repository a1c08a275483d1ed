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
}
