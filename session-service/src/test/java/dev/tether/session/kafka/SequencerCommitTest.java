package dev.tether.session.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.avro.CommandReply;
import dev.tether.core.auth.Role;
import dev.tether.core.auth.TetherPrincipal;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.ProposedEvent;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.UserMessage;
import dev.tether.session.domain.Command;
import java.util.List;
import java.util.Set;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.junit.jupiter.api.Test;

/**
 * Which commands' transactions the sequencer asks Kafka Streams to commit at once: every one but an append, so a claim's
 * caller does not wait for the next commit interval (bench/README.md, figure 7).
 */
class SequencerCommitTest {

    private static final TetherPrincipal AGENT = new TetherPrincipal("agent-1", "acme", Set.of(Role.AGENT));

    private final MockSequencer sequencer = new MockSequencer();
    private final MockProcessorContext<Object, Object> context = sequencer.context;

    @Test
    void anAppend_waitsForTheCommitInterval_whileAClaimAndAnErasure_areCommittedAtOnce() {
        process(AGENT, new Command.AppendEvents(List.of(started()), null, null));
        assertThat(verdicts()).as("the session started").containsExactly(true);
        assertThat(context.committed()).as("an append is committed with its commit interval").isFalse();

        process(AGENT, new Command.AppendEvents(List.of(new ProposedEvent("e2", user(), new UserMessage("hello", null))), null, null));
        assertThat(verdicts()).containsExactly(true);
        assertThat(context.committed()).isFalse();

        process(AGENT, new Command.ClaimSession("w1", "v1", false));
        assertThat(verdicts()).as("the claim is accepted").containsExactly(true);
        assertThat(context.committed()).as("a claim is committed at once").isTrue();

        context.resetCommit();
        process(AGENT, new Command.EraseSession("the owner asked"));
        assertThat(verdicts()).as("the erasure is accepted").containsExactly(true);
        assertThat(context.committed()).as("an erasure is committed at once").isTrue();
    }

    @Test
    void aRefusedClaim_isCommittedAtOnceToo_forItsCallerWaitsForTheVerdictAlike() {
        process(AGENT, new Command.ClaimSession("w1", "v1", false));
        assertThat(verdicts()).as("no such session").containsExactly(false);
        assertThat(context.committed()).isTrue();
    }

    private void process(TetherPrincipal principal, Command command) {
        sequencer.process("s1", principal, command);
    }

    /** Whether each verdict forwarded since the last call accepted its command; forgets them. */
    private List<Boolean> verdicts() {
        return sequencer.replies().stream().map(CommandReply::getAccepted).toList();
    }

    private static ProposedEvent started() {
        return new ProposedEvent("e1", user(), new SessionStarted("rename Foo to Bar", "You are careful.", "model-x", "v1", ToolMode.WRITE,
                List.of(), null, null));
    }

    private static Actor user() {
        return new Actor(ActorKind.USER, "agent-1");
    }
}
