package dev.tether.approval.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.approval.domain.ApprovalItem.Kind;
import dev.tether.approval.domain.ApprovalItem.Status;
import dev.tether.approval.domain.ApprovalItem;
import dev.tether.core.event.CallRunner;
import dev.tether.core.policy.PathGlob;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The item an approver gets: the path glob the page prefills for "grant for the session" says the call's directory, no more. */
class ItemJsonTest {

    private final ObjectMapper json = new ObjectMapper();
    private final ItemJson items = new ItemJson(json, Duration.ofHours(24));

    @Test
    void suggestsTheCallsDirectory_forAPlainPath() {
        assertThat(suggested("{\"path\":\"src/main/Foo.java\",\"content\":\"x\"}")).isEqualTo("src/main/**");
        assertThat(suggested("{\"path\":\"Foo.java\",\"content\":\"x\"}")).isEqualTo("*");
    }

    @Test
    void suggestsNoGlob_whenTheModelsPathHasGlobCharactersInADirectoryName() {
        // the path is the model's: '*' and '?' are plain characters of a name to the file system, and special to a glob, so
        // "**/x" (a directory named '**') would prefill '**/**', a grant of every path, where the approver saw one file
        for (String path : new String[] {"**/x.txt", "*/x.txt", "src/*/x.txt", "s?c/x.txt", "a/**/b/x.txt"}) {
            String glob = suggested("{\"path\":\"" + path + "\",\"content\":\"x\"}");
            assertThat(glob).as(path).isNull();
        }
    }

    @Test
    void aSuggestedGlob_neverCoversAPathOutsideTheCallsDirectory() {
        String glob = suggested("{\"path\":\"src/*/x.txt\",\"content\":\"x\"}");
        if (glob != null) {
            assertThat(PathGlob.parse(glob).matches("src/other/secret.txt")).isFalse();
        }
    }

    @Test
    void suggestsNoGlob_forACallTheSessionsHarnessRuns_whichTheDecisionWouldRefuse() {
        // a glob covers no call of a harness-run tool: the executor's workspace is not where it runs (ApprovalMachine)
        ObjectNode harnessRun = of("{\"path\":\"src/main/Foo.java\"}", CallRunner.HARNESS);
        assertThat(harnessRun.has("suggestedPathGlob")).isFalse();
        assertThat(harnessRun.get("runBy").asText()).as("the page offers no glob field for it").isEqualTo("HARNESS");

        ObjectNode executorRun = of("{\"path\":\"src/main/Foo.java\"}", CallRunner.EXECUTOR);
        assertThat(executorRun.get("suggestedPathGlob").asText()).isEqualTo("src/main/**");
        assertThat(executorRun.get("runBy").asText()).isEqualTo("EXECUTOR");
        assertThat(of("{\"path\":\"src/main/Foo.java\"}", null).has("runBy")).isFalse();
    }

    @Test
    void suggestsNoGlob_forAPathWithoutAPlainForm() {
        assertThat(suggested("{\"path\":\"src/../etc/passwd\",\"content\":\"x\"}")).isNull();
        assertThat(suggested("{\"path\":\"/etc/passwd\",\"content\":\"x\"}")).isNull();
        assertThat(suggested("{\"path\":7}")).isNull();
        assertThat(suggested("not json")).isNull();
    }

    @Test
    void argumentsThatAreNoJson_areGivenAsTheirText_evenWhenTheyAreEmpty() {
        assertThat(of("not json").get("arguments").asText()).isEqualTo("not json");
        for (String blank : new String[] {"", "  "}) {
            assertThat(of(blank).get("arguments").isTextual()).as("'" + blank + "'").isTrue();
            assertThat(of(blank).get("arguments").asText()).isEqualTo(blank);
        }
        assertThat(of("{\"path\":\"a.txt\"}").get("arguments").get("path").asText()).isEqualTo("a.txt");
    }

    private String suggested(String argumentsJson) {
        ObjectNode out = of(argumentsJson);
        return out.has("suggestedPathGlob") ? out.get("suggestedPathGlob").asText() : null;
    }

    private ObjectNode of(String argumentsJson) {
        return of(argumentsJson, CallRunner.EXECUTOR);
    }

    private ObjectNode of(String argumentsJson, CallRunner runBy) {
        ApprovalItem item = new ApprovalItem("s-1", 3, Kind.APPROVAL, Status.PENDING, "acme", "c1", "write_file", argumentsJson,
                "shown", null, 2, Instant.parse("2026-12-06T00:00:00Z"), "model", "agent", null, null, null, false);
        return items.of(item, item.shown(), runBy);
    }
}
