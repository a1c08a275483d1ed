package dev.tether.session.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.core.event.JsonSyntax;
import dev.tether.core.event.WellFormedText;
import dev.tether.core.secrets.Scrubbed;
import dev.tether.core.secrets.SecretScrubber;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTextScrubbingTest {

    private static final SecretScrubber SCRUBBER = SecretScrubber.standard();

    private static Scrubbed scrub(String json) {
        return JsonTextScrubbing.scrub(SCRUBBER, json);
    }

    @Test
    void jsonWhoseSecretsAreQuoted_isScrubbedAsText_byteForByteElsewhere() {
        String json = "{ \"password\" : \"hunter2\",\n  \"messages\": [{\"content\": \"use ghp_abcdefghijklmnopqrstuvwxyz0123456789\"}], \"n\": 1.50 }";

        Scrubbed s = scrub(json);

        assertThat(s.text()).isEqualTo(SCRUBBER.scrub(json).text()).doesNotContain("hunter2", "ghp_abcdef").contains("\"n\": 1.50 }");
        assertThat(s.redactions()).isEqualTo(2);
        assertThat(JsonSyntax.isValue(s.text())).isTrue();
    }

    @Test
    void jsonWhoseTextScrubbingWouldBreakIt_isScrubbedValueByValue_andStaysJson() throws Exception {
        String json = "{\"token\": null, \"password\": 1234, \"api_key\": true, \"max_tokens\": 100,"
                + " \"note\": \"the key sk-abcdefghijklmnopqrstuvwx is here\", \"db_password\": \"hunter2\","
                + " \"nested\": {\"access_token\": 12345678, \"list\": [\"AKIATETHERFAKE000001\", 7, null]}}";
        assertThat(JsonSyntax.isValue(SCRUBBER.scrub(json).text())).as("scrubbed as text, it would not parse").isFalse();

        Scrubbed s = scrub(json);

        assertThat(JsonSyntax.isValue(s.text())).as(s.text()).isTrue();
        var tree = new ObjectMapper().readTree(s.text());
        assertThat(tree.get("token").isNull()).as("no value is no secret").isTrue();
        assertThat(tree.get("password").asText()).isEqualTo("[REDACTED:password-assignment]");
        assertThat(tree.get("api_key").booleanValue()).as("nor is whether there is one").isTrue();
        assertThat(tree.get("db_password").asText()).isEqualTo("[REDACTED:password-assignment]");
        assertThat(tree.get("nested").get("access_token").asText()).isEqualTo("[REDACTED:secret-assignment]");
        assertThat(tree.get("max_tokens").asInt()).as("a count is no secret").isEqualTo(100);
        assertThat(tree.get("note").asText()).isEqualTo("the key [REDACTED:openai-key] is here");
        assertThat(tree.get("nested").get("list").toString()).isEqualTo("[\"[REDACTED:aws-access-key]\",7,null]");
        assertThat(s.text()).doesNotContain("1234", "hunter2", "12345678", "sk-abcdef", "AKIATETHER");
        assertThat(s.redactions()).isEqualTo(5);
        assertThat(s.byKind()).containsEntry("secret-assignment", 1).containsEntry("password-assignment", 2)
                .containsEntry("openai-key", 1).containsEntry("aws-access-key", 1);
    }

    @Test
    void anArrayOrObjectUnderASecretName_hasItsStringsRedacted_alsoWhenTheTextIsScrubbedValueByValue() throws Exception {
        String json = "{\"access_token\": 12345678, \"api_key\": [\"TetherFakeArrayKey01\", 7, null],"
                + " \"credentials\": {\"user\": \"TetherFakeUser01\", \"password\": \"TetherFakePass01\", \"port\": 5432},"
                + " \"tags\": [\"t1\"], \"usedTokens\": {\"inputTokens\": 12}}";
        assertThat(JsonSyntax.isValue(SCRUBBER.scrub(json).text())).as("scrubbed as text, it would not parse").isFalse();

        Scrubbed s = scrub(json);

        assertThat(JsonSyntax.isValue(s.text())).as(s.text()).isTrue();
        var tree = new ObjectMapper().readTree(s.text());
        assertThat(tree.get("access_token").asText()).isEqualTo("[REDACTED:secret-assignment]");
        assertThat(tree.get("api_key").toString()).isEqualTo("[\"[REDACTED:secret-assignment]\",7,null]");
        assertThat(tree.get("credentials").toString()).isEqualTo("{\"user\":\"[REDACTED:secret-assignment]\","
                + "\"password\":\"[REDACTED:password-assignment]\",\"port\":5432}");
        assertThat(tree.get("tags").toString()).isEqualTo("[\"t1\"]");
        assertThat(tree.get("usedTokens").toString()).isEqualTo("{\"inputTokens\":12}");
        assertThat(s.text()).doesNotContain("TetherFake", "12345678");
        assertThat(s.byKind()).containsOnly(Map.entry("secret-assignment", 3), Map.entry("password-assignment", 1));
    }

    @Test
    void aStringThatIsJsonItself_staysJson_whenASecretIsRedactedFromIt() throws Exception {
        // a framework's record holding a tool call's arguments and a tool's output, each JSON text in a string
        String json = "{\"items\": [{\"type\": \"function_call\", \"arguments\": \"{\\\"api_key\\\":12345678,\\\"q\\\":\\\"x\\\"}\"},"
                + " {\"output\": \"{\\\"password\\\": 99999999, \\\"ok\\\": true}\"}], \"note\": \"{not json\"}";
        var mapper = new ObjectMapper();
        String plain = SCRUBBER.scrub(json).text();
        assertThat(JsonSyntax.isValue(plain)).as("the outer text stays JSON scrubbed as text").isTrue();
        assertThat(JsonSyntax.isValue(mapper.readTree(plain).at("/items/0/arguments").asText())).as("the arguments do not").isFalse();

        Scrubbed s = scrub(json);

        var tree = mapper.readTree(s.text());
        String arguments = tree.at("/items/0/arguments").asText();
        assertThat(JsonSyntax.isValue(arguments)).as(arguments).isTrue();
        assertThat(mapper.readTree(arguments).get("q").asText()).isEqualTo("x");
        assertThat(mapper.readTree(arguments).get("api_key").asText()).isEqualTo("[REDACTED:secret-assignment]");
        String output = tree.at("/items/1/output").asText();
        assertThat(JsonSyntax.isValue(output)).as(output).isTrue();
        assertThat(mapper.readTree(output).get("ok").booleanValue()).isTrue();
        assertThat(mapper.readTree(output).get("password").asText()).isEqualTo("[REDACTED:password-assignment]");
        assertThat(tree.get("note").asText()).as("a string that only opens like JSON, as it was").isEqualTo("{not json");
        assertThat(s.text()).doesNotContain("12345678", "99999999");
        assertThat(s.redactions()).isEqualTo(2);
    }

    @Test
    void aStringThatIsJsonItself_andStaysJsonScrubbedAsText_isScrubbedAsText() {
        String json = "{\"arguments\": \"{\\\"api_key\\\": \\\"abcdefgh123\\\"}\",  \"n\": 1.50}";

        Scrubbed s = scrub(json);

        assertThat(s.text()).isEqualTo(SCRUBBER.scrub(json).text()).doesNotContain("abcdefgh123").contains("\"n\": 1.50}");
        assertThat(s.redactions()).isEqualTo(1);
    }

    @Test
    void numbersKeepTheirExactText_whenTheTextIsWrittenAnew() {
        String json = "{\"token\":12345678,\"big\":123456789012345678901234567890,\"f\":0.1000000000000000055511151231257827,\"e\":1E+5,"
                + "\"i\":-0}";

        Scrubbed s = scrub(json);

        assertThat(s.text()).isEqualTo("{\"token\":\"[REDACTED:secret-assignment]\",\"big\":123456789012345678901234567890,"
                + "\"f\":0.1000000000000000055511151231257827,\"e\":1E+5,\"i\":0}");
    }

    @Test
    void secretsHiddenByJsonEscapes_areRedacted_andTheTextStaysJson() throws Exception {
        // Gson writes = as a Unicode escape; any writer may escape a letter
        String json = "{\"command\": \"export DB_PASSWORD\\u003dhunter2\", \"id\": \"\\u0041KIATETHERFAKE000002\"}";

        Scrubbed s = scrub(json);

        assertThat(JsonSyntax.isValue(s.text())).as(s.text()).isTrue();
        var tree = new ObjectMapper().readTree(s.text());
        assertThat(tree.get("command").asText()).isEqualTo("export DB_PASSWORD=[REDACTED:password-assignment]");
        assertThat(tree.get("id").asText()).isEqualTo("[REDACTED:aws-access-key]");
        assertThat(s.redactions()).isEqualTo(2);
    }

    /**
     * A lone surrogate is valid JSON text as an escape, but no character: written anew as the raw char, it was stored as
     * {@code ?} (UTF-8 has no encoding for it), so a framework's state came back with another value than it wrote.
     */
    @Test
    void aLoneSurrogateEscape_staysAnEscape_whenTheTextIsWrittenAnew() throws Exception {
        for (String json : new String[] {"{\"x\": \"\\ud800\", \"password\": 1234}", "{\"x\": \"\\udc00\", \"password\": \"hunter2\"}"}) {
            Scrubbed s = scrub(json);

            assertThat(s.text()).as(json).doesNotContain("1234", "hunter2");
            assertThat(WellFormedText.isWellFormed(s.text())).as(json).isTrue();
            assertThat(new ObjectMapper().readTree(s.text()).get("x").asText()).as(json)
                    .isEqualTo(new ObjectMapper().readTree(json).get("x").asText());
        }
        Scrubbed paired = scrub("{\"x\": \"\\ud83d\\ude00 \u00e9\", \"token\": 1234}");
        assertThat(new ObjectMapper().readTree(paired.text()).get("x").asText()).isEqualTo("\ud83d\ude00 \u00e9");
    }

    @Test
    void jsonWithEscapesButNoSecret_staysByteForByte() {
        String json = "{ \"note\": \"a \\u003d b, see https:\\/\\/example.com\\/x\" }";

        Scrubbed s = scrub(json);

        assertThat(s.text()).isEqualTo(json);
        assertThat(s.redactions()).isZero();
    }

    @Test
    void textThatIsNotJson_orHasNoSecret_isScrubbedAsText() {
        assertThat(scrub("{\"token\": 12345678").text()).isEqualTo(SCRUBBER.scrub("{\"token\": 12345678").text());
        assertThat(scrub("{\"channel_versions\":{\"messages\":3}}").text()).isEqualTo("{\"channel_versions\":{\"messages\":3}}");
        assertThat(scrub("{\"channel_versions\":{\"messages\":3}}").redactions()).isZero();
    }
}
