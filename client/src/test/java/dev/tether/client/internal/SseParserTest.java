package dev.tether.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SseParserTest {

    private static List<SseParser.Message> parse(String stream) throws IOException {
        var parser = new SseParser();
        var out = new ArrayList<SseParser.Message>();
        var reader = new BufferedReader(new StringReader(stream));
        String line;
        while ((line = reader.readLine()) != null) {
            parser.line(line).ifPresent(out::add);
        }
        return out;
    }

    @Test
    void readsTheSessionServicesFrames() throws IOException {
        var messages = parse("id:5\nevent:session_claimed\ndata:{\"seq\":5}\n\nid:6\nevent:session_resumed\ndata:{\"seq\":6}\n\n");
        assertThat(messages).containsExactly(new SseParser.Message(Optional.of("5"), "session_claimed", "{\"seq\":5}"),
                new SseParser.Message(Optional.of("6"), "session_resumed", "{\"seq\":6}"));
    }

    @Test
    void dropsOneSpaceAfterTheColon_andAcceptsAnyLineEnding() throws IOException {
        assertThat(parse("id: 7\r\nevent: user_message\r\ndata:  two spaces\r\n\r\n"))
                .containsExactly(new SseParser.Message(Optional.of("7"), "user_message", " two spaces"));
        assertThat(parse("data:a\rdata:b\r\r")).containsExactly(new SseParser.Message(Optional.empty(), "message", "a\nb"));
    }

    @Test
    void joinsDataLines_skipsComments_andKeepsTheLastIdAcrossEvents() throws IOException {
        var messages = parse(": keep-alive\n\nid:1\ndata:first\ndata:second\n\n:another comment\ndata:third\n\n");
        assertThat(messages).containsExactly(new SseParser.Message(Optional.of("1"), "message", "first\nsecond"),
                new SseParser.Message(Optional.of("1"), "message", "third"));
    }

    @Test
    void anEventWithoutData_isNotDispatched_andAnUnfinishedOneNeither() throws IOException {
        assertThat(parse("event:ping\n\nretry:1000\n\nid:3\ndata:unfinished")).isEmpty();
    }
}
