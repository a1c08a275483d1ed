package dev.tether.kit.service.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/**
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
}
