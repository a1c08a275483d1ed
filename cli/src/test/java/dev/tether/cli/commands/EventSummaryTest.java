package dev.tether.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.client.Actor;
import dev.tether.client.SessionEvent;
import dev.tether.core.event.EventTypes;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class EventSummaryTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void everyEventTypeOfTheWireFormat_hasASummaryOfItsOwn() throws Exception {
        for (String type : EventTypes.wireNames()) {
            assertThat(EventSummary.gist(event(type, "{\"zzz\":\"1\"}"))).as(type).isNotEqualTo("{\"zzz\":\"1\"}");
        }
    }

    @Test
    void aClippedSummary_neverEndsInHalfACharacter() {
        String clipped = Views.clip("ok \uD83D\uDE00 done", 5); // "ok " and an emoji of two chars: the cut falls inside it

        assertThat(clipped).isEqualTo("ok …");
    }

    @Test
    void aTypeThisCliDoesNotKnow_showsItsPayloadFields() throws Exception {
        assertThat(EventSummary.gist(event("memory_saved", "{\"key\":\"k\",\"bytes\":12}"))).isEqualTo("{\"key\":\"k\",\"bytes\":12}");
    }

    @Test
    void summaries_sayWhatHappened() throws Exception {
        assertThat(EventSummary.gist(event("tool_call_authorized", "{\"callId\":\"c1\",\"basis\":{\"kind\":\"APPROVAL\",\"approvalSeq\":7}}")))
                .isEqualTo("c1 by approval at seq 7");
        assertThat(EventSummary.gist(event("approval_granted",
                "{\"callId\":\"c2\",\"scope\":\"SESSION\",\"tool\":\"edit_file\",\"pathGlob\":\"src/**\",\"approver\":\"ann\",\"reason\":\"ok\"}")))
                .isEqualTo("c2 SESSION edit_file src/** by ann: \"ok\"");
        assertThat(EventSummary.gist(event("user_message",
                "{\"contentRef\":{\"uri\":\"blob://x\",\"sha256\":\"ab\",\"size\":70000,\"preview\":\"Here is the log\"}}")))
                .isEqualTo("\"[blob 70000 bytes] Here is the log\"");
        assertThat(EventSummary.gist(event("turn_interrupted", "{\"partialText\":\"I will now\",\"reason\":\"user pressed stop\"}")))
                .isEqualTo("user pressed stop, partial \"I will now\"");
        assertThat(EventSummary.gist(event("tool_call_started",
                "{\"callId\":\"c3\",\"idempotencyKey\":\"s/9/c3\",\"epoch\":2,\"attempt\":1,\"externalKey\":\"s/9/c3~1796114809377\"}")))
                .isEqualTo("c3 attempt 1, epoch 2, key s/9/c3, handed to the tool as s/9/c3~1796114809377");
        assertThat(EventSummary.gist(event("tool_call_started", "{\"callId\":\"c3\",\"idempotencyKey\":\"s/9/c3\",\"epoch\":2,\"attempt\":1}")))
                .as("a start of an SDK before the external key").isEqualTo("c3 attempt 1, epoch 2, key s/9/c3");
    }

    @Test
    void aFrameworkState_saysWhoseStateOfWhatItIs_andHowLarge_neverItsContent() throws Exception {
        assertThat(EventSummary.gist(event("framework_state",
                "{\"framework\":\"langgraph\",\"kind\":\"checkpoint\",\"key\":\"[\\\"\\\",\\\"cp-1\\\"]\","
                        + "\"content\":\"{\\\"v\\\":\\\"é\\\"}\"}")))
                .isEqualTo("langgraph checkpoint [\"\",\"cp-1\"], 10 bytes");
        assertThat(EventSummary.gist(event("framework_state", "{\"framework\":\"langgraph\",\"kind\":\"writes\",\"key\":\"cp-1\","
                + "\"content\":\"{\\\"v\\\":1,\\\"chan\",\"artifact\":{\"uri\":\"blob://sha256/ab\",\"sha256\":\"ab\","
                + "\"size\":70000,\"preview\":\"{\\\"v\\\":1,\\\"chan\"}}")))
                .isEqualTo("langgraph writes cp-1, 70000 bytes (offloaded)");
    }

    @Test
    void aLine_isCutToItsWidth_onOneLine() throws Exception {
        String line = EventSummary.line(event("user_message", "{\"content\":\"" + "line\\n".repeat(100) + "\"}"));

        assertThat(line).doesNotContain("\n").endsWith("…");
        assertThat(line.length()).isLessThan(EventSummary.HEADER.length() + 100);
    }

    private static SessionEvent event(String type, String payload) throws Exception {
        ObjectNode json = (ObjectNode) JSON.readTree(payload);
        json.put("seq", 3).put("eventId", "e3").put("type", type).put("sessionId", "s1").put("occurredAt", "2026-11-29T10:00:00Z");
        json.putObject("actor").put("kind", "USER").put("id", "acme-agent");
        json.put("harnessVersion", "v1");
        return new SessionEvent(3, "e3", type, "s1", Instant.parse("2026-11-29T10:00:00Z"), new Actor("USER", "acme-agent"), "v1", json);
    }
}
