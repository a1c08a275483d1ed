package dev.tether.projector.domain;

import static dev.tether.projector.domain.ProjectionTest.asking;
import static dev.tether.projector.domain.ProjectionTest.call;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.core.event.ApprovalGranted;
import dev.tether.core.event.ApprovalRequested;
import dev.tether.core.event.ApprovalScope;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.OutcomeResolution;
import dev.tether.core.event.ResumeReason;
import dev.tether.core.event.SessionClaimed;
import dev.tether.core.event.SessionClosed;
import dev.tether.core.event.SessionResumed;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolOutcomeResolved;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.TurnInterrupted;
import dev.tether.projector.domain.ProjectionTest.Script;
import dev.tether.projector.domain.SessionProjection.Status;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A session list's row, read from the checkpoint as the session goes on. */
class SessionOverviewTest {

    @Test
    void countsOpenCalls_pendingApprovals_andUnknownOutcomes_asTheSessionGoesOn() {
        Script script = Script.started().add(new SessionClaimed("worker-a", 1, "v1"),
                asking(10, 5, call("c1", "read_file"), call("c2", "edit_file"), call("c3", "run_command")));

        SessionOverview asked = SessionOverview.of(script.state);
        assertThat(asked.openCalls()).isEqualTo(3);
        assertThat(asked.pendingApprovals()).isZero();
        assertThat(asked.workerId()).isEqualTo("worker-a");
        assertThat(asked.epoch()).isEqualTo(1);

        script.add(new ToolCallAuthorized("c1", AuthorizationBasis.POLICY),
                new ApprovalRequested("c2", "edit_file", "--- a/Foo\n+++ b/Foo", null),
                new ApprovalRequested("c3", "run_command", "make", null));
        SessionOverview waiting = SessionOverview.of(script.state);
        assertThat(waiting.status()).isEqualTo(Status.AWAITING_APPROVAL);
        assertThat(waiting.openCalls()).isEqualTo(3);
        assertThat(waiting.pendingApprovals()).isEqualTo(2);

        script.add(new ApprovalGranted("c2", ApprovalScope.ONCE, null, null, "bob", "fine"),
                new ToolCallAuthorized("c2", AuthorizationBasis.approval(7)),
                new ToolResult("c1", "s-1/3/c1", ToolStatus.UNKNOWN, "the executor restarted", null));
        SessionOverview oneUnknown = SessionOverview.of(script.state);
        assertThat(oneUnknown.openCalls()).as("c2 authorized, c3 waiting; c1 has a result, if an unknown one").isEqualTo(2);
        assertThat(oneUnknown.pendingApprovals()).isEqualTo(1);
        assertThat(oneUnknown.unknownOutcomes()).isEqualTo(1);

        script.add(new TurnInterrupted("stop", "the user said stop"),
                new ToolResult("c3", "s-1/3/c3", ToolStatus.CANCELLED, "interrupted", null),
                new ToolResult("c2", "s-1/3/c2", ToolStatus.OK, "edited", null),
                new ToolOutcomeResolved("c1", OutcomeResolution.MARK_DONE, "bob", "it did run"),
                new SessionClaimed("worker-b", 2, "v1"), new SessionResumed(ResumeReason.CRASH, 13, ""));
        SessionOverview settled = SessionOverview.of(script.state);
        assertThat(settled.openCalls()).isZero();
        assertThat(settled.pendingApprovals()).as("a cancelled call waits for nobody").isZero();
        assertThat(settled.unknownOutcomes()).isZero();
        assertThat(settled.workerId()).isEqualTo("worker-b");
        assertThat(settled.epoch()).isEqualTo(2);
        assertThat(settled.lastSeq()).isEqualTo(script.events.size());
        assertThat(settled.lastActivity()).as("the last event's time, not a clock's").isEqualTo(script.events.get(script.events.size() - 1).occurredAt());
        assertThat(settled).extracting(SessionOverview::sessionId, SessionOverview::objective, SessionOverview::harnessVersion,
                SessionOverview::modelId, SessionOverview::owner).containsExactly("s-1", "Rename Foo to Bar", "v1", "model-x", "alice");

        script.add(new SessionClosed("done"));
        assertThat(SessionOverview.of(script.state).status()).isEqualTo(Status.CLOSED);
    }

    @Test
    void anUnclaimedSession_hasNoWorker() {
        SessionOverview overview = SessionOverview.of(Script.started().state);

        assertThat(overview.workerId()).isNull();
        assertThat(overview.epoch()).isZero();
        assertThat(overview.openCalls()).isZero();
    }

    @Test
    void theListOrder_isMostRecentlyActiveFirst_thenById() {
        SessionOverview early = SessionOverview.of(Script.started().state);
        SessionOverview late = SessionOverview.of(Script.started().add(new TurnInterrupted("", "x")).state);
        var renamed = new SessionOverview("a-first", early.objective(), early.status(), early.harnessVersion(), early.modelId(),
                early.owner(), null, 0, early.lastSeq(), early.lastActivity(), 0, 0, 0);
        var list = new ArrayList<>(List.of(early, renamed, late));

        list.sort(SessionOverview.LATEST_FIRST);

        assertThat(list).extracting(SessionOverview::sessionId).containsExactly("s-1", "a-first", "s-1");
        assertThat(list.get(0)).isSameAs(late);
    }

    @Test
    void aPlace_readsBackFromItsCursor_andPagesCutAtItInTheListsOrder() {
        var at = Instant.parse("2026-12-05T09:00:00.123Z");
        var place = new SessionOverview.Place(at, "s-5");
        var never = new SessionOverview.Place(null, "s-9");

        assertThat(place.text()).isEqualTo("2026-12-05T09:00:00.123Z~s-5");
        assertThat(SessionOverview.Place.parse(place.text())).isEqualTo(place);
        assertThat(SessionOverview.Place.parse(never.text())).isEqualTo(never);
        // after a place: the less recently active, then at the same time the later ids, then those that never moved
        assertThat(place.isBefore(new SessionOverview.Place(at.minusMillis(1), "a"))).isTrue();
        assertThat(place.isBefore(new SessionOverview.Place(at, "s-6"))).isTrue();
        assertThat(place.isBefore(never)).isTrue();
        assertThat(place.isBefore(new SessionOverview.Place(at, "s-5"))).as("not itself").isFalse();
        assertThat(place.isBefore(new SessionOverview.Place(at, "s-4"))).isFalse();
        assertThat(place.isBefore(new SessionOverview.Place(at.plusMillis(1), "z"))).isFalse();
        assertThat(never.isBefore(place)).isFalse();
        for (String bad : new String[] {"", "s-5", "~", "2026-12-05T09:00:00Z~", "yesterday~s-5"}) {
            assertThatThrownBy(() -> SessionOverview.Place.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
