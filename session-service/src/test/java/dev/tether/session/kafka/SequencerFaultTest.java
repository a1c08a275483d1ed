package dev.tether.session.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.avro.CommandReply;
import dev.tether.avro.SessionCommand;
import dev.tether.core.auth.Role;
import dev.tether.core.auth.TetherPrincipal;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.HarnessTool;
import dev.tether.core.event.ProposedEvent;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.ToolMode;
import dev.tether.session.domain.Command;
import dev.tether.session.domain.Sequencer;
import java.util.List;
import java.util.Set;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.junit.jupiter.api.Test;

/**
 * A fault of the sequencer's rules on one command refuses that command and leaves the partition working: thrown on, it
 * would fail the task at every retry of the same command, and every other session of the partition would wait behind
 * it. A fault of Kafka's (a store, the task) is still thrown, for Kafka Streams to retry or move the task.
 */
class SequencerFaultTest {

    private static final TetherPrincipal AGENT = new TetherPrincipal("agent-1", "acme", Set.of(Role.AGENT));

    @Test
    void aCommandTheRulesFailOn_isRefused_andTheNextSessionsCommandIsJudgedAsEver() {
        var sequencer = new MockSequencer((envelope, head, history, now) -> {
            if (envelope.sessionId().equals("poison")) {
                throw new IllegalStateException("a fault of the rules on this session's head");
            }
            return Sequencer.decide(envelope, head, history, now);
        });

        sequencer.process("poison", AGENT, start());
        assertThat(sequencer.context.forwarded(SequencerProcessor.EVENTS_SINK)).as("nothing appended for it").isEmpty();
        List<CommandReply> refused = sequencer.replies();
        sequencer.process("s2", AGENT, start());
        assertThat(sequencer.context.forwarded(SequencerProcessor.EVENTS_SINK)).as("the next session's first event").hasSize(1);
        List<CommandReply> next = sequencer.replies();

        assertThat(refused).singleElement().satisfies(reply -> {
            assertThat(reply.getAccepted()).isFalse();
            assertThat(reply.getRejection().getCode()).isEqualTo("illegal_event");
            assertThat(reply.getRejection().getMessage()).contains("a fault of Tether's").contains(reply.getCommandId())
                    .doesNotContain("head"); // the exception's own message stays in the log
        });
        assertThat(next).singleElement().satisfies(reply -> assertThat(reply.getAccepted()).as("the next session starts").isTrue());
    }

    @Test
    void aFaultOfKafkas_isThrown_forKafkaStreamsToRetryOrMoveTheTask() {
        var sequencer = new MockSequencer((envelope, head, history, now) -> {
            throw new InvalidStateStoreException("the store is closed: the task migrated");
        });

        assertThatThrownBy(() -> sequencer.process("s1", AGENT, start())).isInstanceOf(InvalidStateStoreException.class);
        assertThat(sequencer.replies()).as("no verdict the caller could take for the command's").isEmpty();
    }

    @Test
    void aCommandWithoutThePayloadItsTypeNames_isRefused_andTheNextSessionsCommandIsJudgedAsEver() {
        var sequencer = new MockSequencer();
        sequencer.process("s1", AGENT, start());
        sequencer.replies();
        // another writer of session-commands: an append_events that carries a claim's payload, not its own
        SessionCommand mislabelled = sequencer.encoded("s1", AGENT, new Command.ClaimSession("worker-1", "v1", false));
        mislabelled.setType(CommandAvro.APPEND_EVENTS);

        assertThatCode(() -> sequencer.process(mislabelled)).as("the command that would stop the partition at every retry")
                .doesNotThrowAnyException();
        List<CommandReply> refused = sequencer.replies();
        sequencer.process("s2", AGENT, start());

        assertThat(refused).singleElement().satisfies(reply -> {
            assertThat(reply.getAccepted()).isFalse();
            assertThat(reply.getRejection().getCode()).isEqualTo("illegal_event");
        });
        assertThat(sequencer.replies()).singleElement().satisfies(reply -> assertThat(reply.getAccepted()).isTrue());
    }

    @Test
    void aHeadTheStoreCannotWriteDuringARollingUpgrade_refusesItsCommand_andTheNextSessionsCommandIsJudgedAsEver() {
        // tether.stores.write-version.session-heads=2: version 2 cannot hold harness-run tools, and refuses them
        var sequencer = new MockSequencer(null, SequencerStoreFormats.HEADS.writing(2));
        var declaringHarnessTools = new Command.AppendEvents(List.of(new ProposedEvent("e1", new Actor(ActorKind.USER, "agent-1"),
                new SessionStarted("rename Foo to Bar", "You are careful.", "model-x", "v1", ToolMode.WRITE, List.of(), null, null,
                        List.of(new HarnessTool("send_email", true, true, false)), null))), null, null);

        assertThatCode(() -> sequencer.process("s1", AGENT, declaringHarnessTools))
                .as("a command whose head the store refuses, which would stop the partition at every retry")
                .doesNotThrowAnyException();
        assertThat(sequencer.context.forwarded(SequencerProcessor.EVENTS_SINK)).as("nothing appended for it").isEmpty();
        List<CommandReply> refused = sequencer.replies();
        sequencer.process("s2", AGENT, start());

        assertThat(refused).singleElement().satisfies(reply -> {
            assertThat(reply.getAccepted()).isFalse();
            assertThat(reply.getRejection().getCode()).isEqualTo("illegal_event");
        });
        assertThat(sequencer.context.forwarded(SequencerProcessor.EVENTS_SINK)).as("the next session's first event").hasSize(1);
        assertThat(sequencer.replies()).singleElement().satisfies(reply -> assertThat(reply.getAccepted()).isTrue());
    }

    private static Command start() {
        return new Command.AppendEvents(List.of(new ProposedEvent("e1", new Actor(ActorKind.USER, "agent-1"),
                new SessionStarted("rename Foo to Bar", "You are careful.", "model-x", "v1", ToolMode.WRITE, List.of(), null, null))),
                null, null);
    }
}
