package dev.tether.approval.domain;

import static dev.tether.approval.domain.Story.asking;
import static dev.tether.approval.domain.Story.call;
import static dev.tether.approval.domain.Story.edit;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.core.event.ProposedEvent;
import org.junit.jupiter.api.Test;

/**
 * The ids the approval-service derives are in logs already: an expiry denial is recognized by its id and a decision
 * retried across an upgrade must be the same event. The values below were computed by the machine's own derivation
 * before {@link dev.tether.core.id.DerivedIds} replaced it.
 */
class ApprovalIdsTest {

    @Test
    void theServicesAnswers_keepTheirIds() {
        Story story = Story.started().append(asking(call("c1", "read_file", "{}"), edit("c2", "src/A.java")));

        assertThat(story.answers).extracting(ProposedEvent::eventId)
                .containsExactly("68d7693b-ce25-3411-8409-32a4a2374799", "109c06a8-b583-37b7-9bd1-0062ca877c10");
    }

    @Test
    void expiryCancellationAndDecisionIds_keepTheirValues() {
        assertThat(ApprovalMachine.expiredId("s1", "c1")).isEqualTo("337cd68c-685e-31e4-9644-f6bd519a02b6");
        assertThat(ApprovalMachine.cancelledId("s1", "c1")).isEqualTo("f418dca8-e3b1-3b13-ad13-ab8a9c14c955");
        assertThat(ApprovalMachine.id("s1", "c1", "approval_requested")).isEqualTo("1df1c6f1-267d-33fc-9b70-df91a653c636");
        assertThat(ApprovalMachine.id("s1", "decision", "7", "alice", "GRANT_SESSION", "write_file", "src/**", "fine"))
                .isEqualTo("a0e090cb-0e31-345a-aaea-7b4762a0e59a");
    }
}
