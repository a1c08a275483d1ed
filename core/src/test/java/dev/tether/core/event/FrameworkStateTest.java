package dev.tether.core.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.core.blob.BlobRef;
import java.util.List;
import org.junit.jupiter.api.Test;

class FrameworkStateTest {

    private static final String SHA = "a".repeat(64);

    private static FrameworkState state(String framework, String kind, String key, String content) {
        return new FrameworkState(framework, kind, key, content);
    }

    private static void refused(String framework, String kind, String key, String content, String field) {
        assertThatThrownBy(() -> state(framework, kind, key, content)).as("%s %s %s %s", framework, kind, key, content)
                .isInstanceOfSatisfying(InvalidEventException.class, e -> assertThat(e.field()).isEqualTo(field));
    }

    @Test
    void takesWhatAFrameworkWrites_asItIs() {
        var state = state("langgraph", "checkpoint", "[\"\",\"1ef4f797-8335-6428-8001-8a1503f9b875\"]",
                "{\"v\":1,\"channel_versions\":{\"messages\":3},\"versions_seen\":{}}");

        assertThat(state.type()).isEqualTo("framework_state");
        assertThat(state.key()).isEqualTo("[\"\",\"1ef4f797-8335-6428-8001-8a1503f9b875\"]");
        assertThat(state.artifact()).isNull();
        assertThat(state("openai-agents", "session.items_v2", "k", "[]").framework()).isEqualTo("openai-agents");
        assertThat(state("a".repeat(FrameworkState.MAX_NAME), "0", "k".repeat(FrameworkState.MAX_KEY), "null").kind()).isEqualTo("0");
        assertThat(state("langgraph", "writes", "ключ é 🔑", "\"text\"").key()).isEqualTo("ключ é 🔑");
    }

    @Test
    void refusesABadFrameworkOrKind_namingTheField() {
        for (String bad : new String[] {"", "LangGraph", "-x", ".x", "_x", "lang graph", "lang/graph", "é", "a".repeat(65)}) {
            refused(bad, "checkpoint", "k", "{}", "framework");
            refused("langgraph", bad, "k", "{}", "kind");
        }
        refused(null, "checkpoint", "k", "{}", "framework");
        refused("langgraph", null, "k", "{}", "kind");
    }

    @Test
    void refusesAnEmptyOrLongKey_orOneWithAControlCharacter_namingTheField() {
        for (String bad : new String[] {"", "k".repeat(FrameworkState.MAX_KEY + 1), "a\nb", "tab\there", "nul\u0000", "del\u007f",
                "c1\u0085"}) {
            refused("langgraph", "checkpoint", bad, "{}", "key");
        }
        refused("langgraph", "checkpoint", null, "{}", "key");
    }

    @Test
    void refusesContentThatIsNotOneJsonValue_namingTheField() {
        for (String bad : List.of("", " ", "{", "}", "{\"a\":}", "{\"a\" 1}", "{a:1}", "{\"a\":1,}", "[1,]", "[1 2]", "{} {}", "[]]",
                "'single'", "\"unterminated", "\"raw\nline\"", "\"bad \\x escape\"", "\"\\u12\"", "01", "-", "1.", ".5", "1e",
                "+1", "NaN", "Infinity", "True", "nul", "undefined", "{\"a\":1}x", "[".repeat(100_000))) {
            refused("langgraph", "checkpoint", "k", bad, "content");
        }
        refused("langgraph", "checkpoint", "k", null, "content");
    }

    @Test
    void takesEveryKindOfJsonValue_whateverItsNesting() {
        for (String good : List.of("{}", "[]", "0", "-0.5e+10", "1E-3", "123456789012345678901234567890", "true", "false", "null",
                "\"\"", "\"esc \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\uD83D\\uDD11\"", " \t\r\n{ \"a\" : [ 1 , { } , [ ] ] } \n",
                "{\"a\":1,\"a\":2}", "[".repeat(100_000) + "]".repeat(100_000),
                "{\"x\":".repeat(50_000) + "null" + "}".repeat(50_000))) {
            assertThat(state("langgraph", "checkpoint", "k", good).content()).isEqualTo(good);
            assertThat(JsonSyntax.strictProblem(good)).as(good).isNull();
        }
    }

    @Test
    void anEscapeWithNonAsciiHexDigits_readsBackAsStored_butNewContentMustHaveAsciiOnes() {
        String fullwidth = "\"\\u\uFF10\uFF10\uFF14\uFF11\""; // JSON.parse and Jackson read no such escape

        assertThat(state("langgraph", "checkpoint", "k", fullwidth).content()).isEqualTo(fullwidth);
        assertThat(JsonSyntax.strictProblem(fullwidth)).isEqualTo("a \\u escape needs four hex digits, at offset 1");
        assertThat(JsonSyntax.strictProblem("\"\\u00eF\"")).isNull();
    }

    @Test
    void offloadedContent_isItsPreview_whichNeedNotParse() {
        var ref = BlobRef.of(SHA, 70_000, "{\"v\":1,\"channel_val");

        var state = new FrameworkState("langgraph", "checkpoint", "cp-1", "{\"v\":1,\"channel_val", ref);

        assertThat(state.artifact()).isEqualTo(ref);
        assertThatThrownBy(() -> new FrameworkState("langgraph", "checkpoint", "cp-1", null, ref))
                .isInstanceOfSatisfying(InvalidEventException.class, e -> assertThat(e.field()).isEqualTo("content"));
    }

    @Test
    void aRefusal_neverQuotesTheContent() {
        assertThatThrownBy(() -> state("langgraph", "checkpoint", "k", "{\"password\": hunter2}"))
                .hasMessageNotContaining("hunter2").hasMessageContaining("offset 13");
    }
}
