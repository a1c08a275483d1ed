package dev.tether.session.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.core.event.InvalidEventException;
import dev.tether.kit.json.EventJson;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Every write endpoint's body is scrubbed of secrets before it is read ({@link SessionResource#read}). */
class RequestScrubbingTest {

    private static final String TOKEN = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";

    private final EventJson json = new EventJson();

    @Test
    void aTokenSentAsAForksSessionId_isNeverStored_butRefusedNamingTheField() {
        assertThatThrownBy(() -> SessionResource.read(json, bytes("{\"atSeq\":1,\"sessionId\":\"" + TOKEN + "\"}"), Requests.Fork.class))
                .isInstanceOf(InvalidEventException.class)
                .satisfies(e -> assertThat(((InvalidEventException) e).field()).isEqualTo("sessionId"))
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(TOKEN));
        assertThatThrownBy(() -> SessionResource.read(json, bytes("{\"atSeq\":1,\"eventId\":\"" + TOKEN + "\"}"), Requests.Fork.class))
                .isInstanceOf(InvalidEventException.class)
                .satisfies(e -> assertThat(((InvalidEventException) e).field()).isEqualTo("eventId"));
    }

    @Test
    void aTokenSentAsAMigrationsVersionOrRequestId_isNeverStored_butRefusedNamingTheField() {
        assertThatThrownBy(() -> SessionResource.read(json, bytes("{\"toVersion\":\"" + TOKEN + "\"}"), Requests.Migrate.class))
                .isInstanceOf(InvalidEventException.class)
                .satisfies(e -> assertThat(((InvalidEventException) e).field()).isEqualTo("toVersion"));
        assertThatThrownBy(() -> SessionResource.read(json, bytes("{\"toVersion\":\"v2\",\"requestId\":\"" + TOKEN + "\"}"),
                Requests.Migrate.class))
                .isInstanceOf(InvalidEventException.class)
                .satisfies(e -> assertThat(((InvalidEventException) e).field()).isEqualTo("requestId"));
    }

    /** A harness version's entry is stored on harness-versions and shown to every operator: its body is scrubbed too. */
    @Test
    void aTokenSentAsAHarnessVersionsModelOrVersion_isNeverStored() {
        assertThat(HarnessVersionResource.entry(json, bytes("{\"version\":\"v2\",\"weight\":10,\"modelId\":\"" + TOKEN + "\"}"))
                .modelId()).isEqualTo("[REDACTED:github-token]");
        assertThatThrownBy(() -> HarnessVersionResource.entry(json, bytes("{\"version\":\"" + TOKEN + "\",\"weight\":10}")))
                .isInstanceOf(InvalidEventException.class)
                .satisfies(e -> assertThat(((InvalidEventException) e).field()).isEqualTo("version"))
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(TOKEN));
    }

    @Test
    void aCreatesText_isScrubbed_andTheRedactionsCounted() {
        var read = SessionResource.read(json, bytes("{\"objective\":\"use " + TOKEN + "\",\"toolMode\":\"WRITE\",\"constraints\":[\""
                + TOKEN + "\"]}"), Requests.CreateSession.class);

        assertThat(read.redactions()).isEqualTo(2);
        assertThat(read.request().objective()).isEqualTo("use [REDACTED:github-token]");
        assertThat(read.request().constraints()).containsExactly("[REDACTED:github-token]");
    }

    @Test
    void aToolModeIsReadExactly() {
        assertThatThrownBy(() -> SessionResource.read(json, bytes("{\"objective\":\"o\",\"toolMode\":\"WRITE \"}"),
                Requests.CreateSession.class))
                .hasMessageContaining("exactly");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
