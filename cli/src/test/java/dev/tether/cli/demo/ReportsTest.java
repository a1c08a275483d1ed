package dev.tether.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.client.SessionEvent;
import dev.tether.client.internal.Json;
import dev.tether.client.internal.Wire;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The demo prints what the log holds — a tool's output among it — as a terminal shows it, never as one obeys it. */
class ReportsTest {

    @Test
    void aTimelineWithATerminalEscapeSequenceInAToolsOutput_printsItEscaped() {
        SessionEvent result = Wire.event(Json.parse("""
                {"seq":7,"eventId":"e7","type":"tool_result","sessionId":"demo-1","occurredAt":"2026-12-07T01:00:00Z",
                 "actor":{"kind":"TOOL","id":"executor"},"callId":"call-3","status":"OK",
                 "content":"ok \\u001B]0;owned\\u0007\\u001B[2Jcleared"}
                """));
        var bytes = new ByteArrayOutputStream();

        Reports.printTimeline(List.of(result), new PrintStream(bytes, true, StandardCharsets.UTF_8));

        String printed = bytes.toString(StandardCharsets.UTF_8);
        assertThat(printed).doesNotContain("\u001B").doesNotContain("\u0007").contains("\\u001B]0;owned\\u0007\\u001B[2Jcleared");
    }
}
