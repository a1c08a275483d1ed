package dev.tether.kit.service.rest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.kit.service.rest.SseReader.Frame;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The relay's reading of the session-service's event stream, whatever the chunks it arrives in. */
class SseReaderTest {

    private static final String STREAM = ": a comment\n"
            + "id: 7\nevent: user_message\ndata: {\"seq\":7,\"content\":\"héllo → wörld 🚀\"}\n\n"
            + "id:8\r\nevent:tool_result\r\ndata:{\"seq\":8,\r\ndata: \"content\":\"two lines\"}\r\n\r\n"
            + "retry: 1000\rid: 9\rdata: x\r\r"
            + "event: no_data\n\n"
            + "data\n\n";

    private static final List<Frame> FRAMES = List.of(
            new Frame("7", "user_message", "{\"seq\":7,\"content\":\"héllo → wörld 🚀\"}"),
            new Frame("8", "tool_result", "{\"seq\":8,\n\"content\":\"two lines\"}"),
            new Frame("9", null, "x"),
            new Frame(null, null, ""));

    @Test
    void readsEveryEvent_ofLfCrlfAndCrLines_withCommentsAndEventsWithoutDataLeftOut() {
        assertThat(new SseReader().read(List.of(bytes(STREAM)))).containsExactlyElementsOf(FRAMES);
    }

    @Test
    void readsTheSameEvents_whereverTheChunksAreCut_insideACharacterOrACrlfIncluded() {
        byte[] all = STREAM.getBytes(StandardCharsets.UTF_8);
        var random = new Random(21);
        for (int run = 0; run < 200; run++) {
            var reader = new SseReader();
            var frames = new ArrayList<Frame>();
            int at = 0;
            while (at < all.length) {
                int size = 1 + random.nextInt(run % 2 == 0 ? 3 : 40);
                int end = Math.min(all.length, at + size);
                // sometimes two buffers in one item, as the HTTP client delivers them
                int mid = at + (end - at) / 2;
                frames.addAll(reader.read(List.of(ByteBuffer.wrap(all, at, mid - at), ByteBuffer.wrap(all, mid, end - mid))));
                at = end;
            }
            assertThat(frames).as("run " + run).containsExactlyElementsOf(FRAMES);
        }
    }

    @Test
    void anEventNotEndedYet_isKeptUntilItsBlankLine() {
        var reader = new SseReader();

        assertThat(reader.read(List.of(bytes("id: 1\ndata: {\"seq\":1}\n")))).isEmpty();
        assertThat(reader.read(List.of(bytes("\n")))).containsExactly(new Frame("1", null, "{\"seq\":1}"));
    }

    private static ByteBuffer bytes(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    }
}
