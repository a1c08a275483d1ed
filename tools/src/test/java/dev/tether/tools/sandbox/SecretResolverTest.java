package dev.tether.tools.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SecretResolverTest {

    private final OutputRedactor redactor = new OutputRedactor();
    private final SecretResolver resolver = new SecretResolver(
            new MapSecretProvider(Map.of("gh.token", "ghp-value-1", "db-password", "pw-value-2")), redactor);

    @Test
    void replacesEachReference_byItsValue() {
        assertThat(resolver.resolveIn("curl -H 'Authorization: Bearer secret://gh.token' -u u:secret://db-password."))
                .isEqualTo("curl -H 'Authorization: Bearer ghp-value-1' -u u:pw-value-2.");
    }

    @Test
    void registersEachResolvedValue_withTheRedactor() {
        resolver.resolveIn("secret://gh.token");

        assertThat(redactor.redact("echo ghp-value-1").text()).isEqualTo("echo [REDACTED:secret:gh.token]");
        assertThat(redactor.redact("echo pw-value-2").text()).isEqualTo("echo pw-value-2");
    }

    @Test
    void leavesTextWithoutReferences_asItIs() {
        String text = "no references, not even secret:/ or secret:// alone";

        assertThat(resolver.resolveIn(text)).isSameAs(text);
    }

    @Test
    void refusesAnUnknownSecret_namingTheReferenceButNoValue() {
        assertThatThrownBy(() -> resolver.resolveIn("secret://gh.token then secret://missing"))
                .isInstanceOf(UnknownSecretException.class)
                .hasMessage("unknown secret secret://missing")
                .hasMessageNotContaining("ghp-value-1");
    }

    @Test
    void showsSecretNames_butNeverValues() {
        assertThat(new MapSecretProvider(Map.of("b", "value-b", "a", "value-a"))).hasToString("MapSecretProvider[a, b]");
    }
}
