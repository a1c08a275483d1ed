package dev.tether.kit.service.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A body is read as one JSON value whose objects name each member once, or refused with a 400 that names what is wrong.
 * A lone UTF-16 surrogate is valid JSON but no Unicode character: stored as UTF-8 it became '?', so two distinct ids
 * could become one and a text was not stored as sent. Refused, naming where it is.
 */
class StrictInputTest {

    private final ObjectMapper json = new ObjectMapper();

    @Test
    void aLoneSurrogate_inATextOrAFieldName_isRefusedNamingItsPlace() throws Exception {
        for (String[] body : new String[][] {
                {"{\"events\":[{\"content\":\"ok\"},{\"content\":\"a\\ud800b\"}]}", "events[1].content"},
                {"{\"objective\":\"\\udc00\"}", "objective"},
                {"{\"a\":{\"\\ud800\":1}}", "a.\ud800"},
                {"{\"x\":\"ends high \\ud83d\"}", "x"}}) {
            assertThatThrownBy(() -> StrictInput.wellFormedText(json.readTree(body[0]))).as(body[0])
                    .isInstanceOfSatisfying(ApiException.class, e -> {
                        assertThat(e.status()).isEqualTo(400);
                        assertThat(e.getMessage()).contains("lone UTF-16 surrogate");
                    });
        }
    }

    @Test
    void aPairedSurrogate_isACharacter_andTaken() throws Exception {
        var tree = json.readTree("{\"content\":\"\\ud83d\\ude00 and plain text\",\"n\":[1,\"two\"]}");

        assertThat(StrictInput.wellFormedText(tree)).isSameAs(tree);
    }

    @Test
    void aMemberNamedTwice_isRefusedNamingIt_atAnyDepth_withASecretInItsNameScrubbed() {
        assertThat(refusal("{\"decision\":\"DENY\",\"decision\":\"GRANT_ONCE\"}")).containsEntry("error", "invalid_field")
                .containsEntry("field", "decision");
        assertThat(refusal("{\"events\":[{\"content\":\"a\"},{\"content\":\"b\",\"content\":\"c\"}]}"))
                .containsEntry("field", "events[1].content");
        assertThat(refusal("{\"reason\":{\"a\":1,\"a\":2}}")).containsEntry("field", "reason.a");
        assertThat(refusal("{\"ghp_0123456789abcdefghijklmnopqrstuvwxyzAB\":1,\"ghp_0123456789abcdefghijklmnopqrstuvwxyzAB\":2}"))
                .containsEntry("field", "[REDACTED:github-token]");
    }

    @Test
    void aBodyThatIsNotOneJsonValue_isMalformed_withWhereItBreaks() {
        assertThat(refusal("{\"decision\":\"DENY\"}{\"decision\":\"GRANT_ONCE\"}")).containsEntry("error", "malformed_json");
        assertThat(refusal("{\"a\":1} 2")).containsEntry("error", "malformed_json");
        assertThat(refusal("{\"a\":\n  tru}").get("message").toString()).contains("line 2");
        assertThat(refusal("[".repeat(5000))).containsEntry("error", "malformed_json");
        ApiException notUtf8 = catchThrowableOfType(ApiException.class, () -> StrictInput.json(json, new byte[] {'"', (byte) 0xC3, '"'}));
        assertThat(notUtf8.body()).containsEntry("error", "malformed_json");
        assertThat(refusal("{\"a\":\"\\ud800\"}")).containsEntry("field", "a");
    }

    @Test
    void aBlankBody_isNull_andAnyOtherValueIsItsTree() {
        assertThat(StrictInput.json(json, null)).isNull();
        assertThat(StrictInput.json(json, " \n".getBytes(StandardCharsets.UTF_8))).isNull();
        assertThat(StrictInput.json(json, "[1,{\"x\":2},{\"x\":3}]".getBytes(StandardCharsets.UTF_8)).get(2).path("x").asInt())
                .isEqualTo(3);
    }

    private Map<String, Object> refusal(String body) {
        ApiException e = catchThrowableOfType(ApiException.class, () -> StrictInput.json(json, body.getBytes(StandardCharsets.UTF_8)));
        assertThat(e).as(body).isNotNull();
        assertThat(e.status()).as(body).isEqualTo(400);
        return e.body();
    }

    @Test
    void anInstantParam_isAnIsoInstantInMilliseconds_orRefusedNamingTheParam() {
        assertThat(StrictInput.instantParam("2026-12-06T12:00:00.123Z", "at")).isEqualTo(java.time.Instant.ofEpochMilli(1796558400123L));
        assertThat(StrictInput.instantParam(null, "at")).isNull();
        assertThat(StrictInput.instantParam("", "at")).isNull();
        for (String bad : new String[] {"2026-12-06", "yesterday", "1796558400123", "+1000000000-01-01T00:00:00Z"}) {
            assertThatThrownBy(() -> StrictInput.instantParam(bad, "at")).as(bad).isInstanceOfSatisfying(ApiException.class,
                    e -> assertThat(e.body()).containsEntry("field", "at"));
        }
    }
}
