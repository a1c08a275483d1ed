package dev.tether.session.domain;

import static dev.tether.session.domain.Given.AGENT;
import static dev.tether.session.domain.Given.asking;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.core.event.ToolCall;
import dev.tether.session.domain.Given.World;
import dev.tether.session.kafka.CommandAvro;
import dev.tether.session.kafka.SequencerStoreFormats;
import org.junit.jupiter.api.Test;

/**
 * The head is one record of the {@code session-heads} changelog, written in every append's exactly-once transaction, and
 * holds every open call by its callId and tool. An agent's appends, each within the command limit (512 KiB), must not
 * make it larger than a Kafka record (1 MiB by default: a larger one fails the transaction again at every retry, and the
 * Kafka Streams client stops for every tenant), nor make one append take minutes on the stream thread: at most
 * {@value Sequencer#MAX_OPEN_CALLS} calls open at once, callIds and tool names of at most {@value Sequencer#MAX_CALL_ID}
 * characters, and the calls of a message folded with one copy of the map.
 */
class SequencerHeadSizeTest {

    static final int MAX_COMMAND_BYTES = 524_288;    // SessionServiceConfig.maxCommandBytes' default
    static final int KAFKA_MAX_RECORD = 1_048_576;   // the producer's default max.request.size

    @Test
    void appendsWithinTheCommandLimit_neverGiveAHeadLargerThanAKafkaRecord() throws Exception {
        World w = World.started();
        for (int i = 0; i < 4; i++) {
            String callId = ("c" + i + "-").repeat(100_000);   // 300,000 characters: a callId no rule bounds
            CommandEnvelope append = w.append(AGENT, asking(new ToolCall(callId, "write_file", "{}")));
            int commandBytes = CommandAvro.toAvro(append, "replies").toByteBuffer().remaining();
            assertThat(commandBytes).as("append %d is a command the REST edge takes", i).isLessThan(MAX_COMMAND_BYTES);

            Decision d = w.apply(append);
            if (d instanceof Decision.Rejected) {
                return; // refused: the head stays as it was
            }
        }
        int headBytes = SequencerStoreFormats.HEADS.serialize("session-heads-changelog", w.head).length;
        assertThat(headBytes).as("the stored head of a session with %d open calls", w.head.openCalls().size())
                .isLessThan(KAFKA_MAX_RECORD);
    }

    /** The same with callIds and tool names of a few hundred characters: it takes more calls, still only a few appends. */
    @Test
    void manyShortCalls_withinTheCommandLimit_neverGiveAHeadLargerThanAKafkaRecord() throws Exception {
        World w = World.started();
        for (int i = 0; i < 4; i++) {
            var calls = new ToolCall[1_300];
            for (int c = 0; c < calls.length; c++) {
                calls[c] = new ToolCall("call-" + i + "-" + c + "-" + "x".repeat(240), "t".repeat(120), "{}");
            }
            CommandEnvelope append = w.append(AGENT, asking(calls));
            int commandBytes = CommandAvro.toAvro(append, "replies").toByteBuffer().remaining();
            assertThat(commandBytes).as("append %d is a command the REST edge takes", i).isLessThan(MAX_COMMAND_BYTES);
            if (w.apply(append) instanceof Decision.Rejected) {
                return;
            }
        }
        int headBytes = SequencerStoreFormats.HEADS.serialize("session-heads-changelog", w.head).length;
        assertThat(headBytes).as("the stored head of a session with %d open calls", w.head.openCalls().size())
                .isLessThan(KAFKA_MAX_RECORD);
    }

    /**
     * One assistant_message of many calls: evolve folds each call with SessionHead.withCall, which copies the whole map
     * twice (a LinkedHashMap, then the constructor's TreeMap of an unsorted map: n log n), so a message of n calls costs
     * O(n^2 log n) on the stream thread. 10,000 calls of a few characters are a command of ~150 KB, far within the limit;
     * 40,000 still are (~500 KB) and take 16 times as long: past max.poll.interval.ms (5 min), the thread is dropped from
     * the group and the task, with its uncommitted command, moves to the next instance, which stalls in turn.
     */
    @Test
    void oneAppendOfManySmallCalls_isDecidedInAMomentNotInMinutes() throws Exception {
        World w = World.started();
        var calls = new ToolCall[10_000];
        for (int c = 0; c < calls.length; c++) {
            calls[c] = new ToolCall("c" + c, "t", "{}");
        }
        CommandEnvelope append = w.append(AGENT, asking(calls));
        int commandBytes = CommandAvro.toAvro(append, "replies").toByteBuffer().remaining();
        assertThat(commandBytes).isLessThan(MAX_COMMAND_BYTES / 3);

        long t0 = System.nanoTime();
        w.decide(append);
        long millis = (System.nanoTime() - t0) / 1_000_000;

        System.out.printf("decide of one append of %d calls (%d bytes): %d ms%n", calls.length, commandBytes, millis);
        assertThat(millis).as("milliseconds to decide one append of %d bytes", commandBytes).isLessThan(1_000);
    }
}
