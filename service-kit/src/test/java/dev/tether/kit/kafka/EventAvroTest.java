package dev.tether.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.avro.SessionEvent;
import dev.tether.core.blob.BlobRef;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.ApprovalDenied;
import dev.tether.core.event.ApprovalGranted;
import dev.tether.core.event.ApprovalScope;
import dev.tether.core.event.Event;
import dev.tether.core.event.FrameworkState;
import dev.tether.core.event.OutcomeResolution;
import dev.tether.core.event.ToolOutcomeResolved;
import dev.tether.core.event.UnknownEvent;
import dev.tether.schema.ReleasedSchemas;
import java.time.Instant;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class EventAvroTest {

    @Test
    void toolOutcomeResolved_roundTripsThroughTheSessionEventsBinaryEncoding() throws Exception {
        var event = new Event("e-5", "s-1", "acme", 5, Instant.parse("2026-11-29T10:00:00Z"), new Actor(ActorKind.APPROVER, "alice"),
                "v1", new ToolOutcomeResolved("c1", OutcomeResolution.RETRY, "alice", "the server saw nothing"));

        SessionEvent read = SessionEvent.fromByteBuffer(EventAvro.toAvro(event).toByteBuffer());

        assertThat(EventAvro.fromAvro(read)).isEqualTo(event);
    }

    @Test
    void aTraceId_roundTrips_noneStaysNone_andAMalformedOneReadsAsNone() throws Exception {
        var event = new Event("e-5", "s-1", "acme", 5, Instant.parse("2026-11-29T10:00:00Z"), new Actor(ActorKind.USER, "alice"),
                "v1", new dev.tether.core.event.UserMessage("hi", null), "0af7651916cd43dd8448eb211c80319c");

        SessionEvent read = SessionEvent.fromByteBuffer(EventAvro.toAvro(event).toByteBuffer());

        assertThat(read.getTraceId()).isEqualTo("0af7651916cd43dd8448eb211c80319c");
        assertThat(EventAvro.fromAvro(read)).isEqualTo(event);
        assertThat(EventAvro.toAvro(event.withTraceId(null)).getTraceId()).isNull();
        read.setTraceId("00000000000000000000000000000000");
        assertThat(EventAvro.fromAvro(read).traceId()).as("an invalid (all-zero) trace id is none").isNull();
        read.setTraceId("0AF7651916CD43DD8448EB211C80319C");
        assertThat(EventAvro.fromAvro(read).traceId()).isNull();
    }

    @Test
    void harnessToolsAndToolCallStarted_roundTrip_andAStartWithoutTools_writesNullAsBeforeTheField() throws Exception {
        var tools = java.util.List.of(new dev.tether.core.event.HarnessTool("send_email", true, true, false),
                new dev.tether.core.event.HarnessTool("search", false, false, true));
        var start = new Event("e-1", "s-1", "acme", 1, Instant.parse("2026-12-01T10:00:00Z"), new Actor(ActorKind.USER, "agent-1"), "v1",
                new dev.tether.core.event.SessionStarted("o", "", "m", "v1", dev.tether.core.event.ToolMode.WRITE, java.util.List.of(),
                        null, null, tools));
        var fork = new Event("e-2", "s-2", "acme", 1, Instant.parse("2026-12-01T10:00:00Z"), new Actor(ActorKind.USER, "agent-1"), "v1",
                new dev.tether.core.event.SessionForked("s-1", 3, "o", "", "m", "v1", dev.tether.core.event.ToolMode.WRITE,
                        java.util.List.of(), tools, "e-3", Instant.parse("2026-12-01T09:59:00.123Z"), 700L));
        var started = new Event("e-5", "s-1", "acme", 5, Instant.parse("2026-12-01T10:00:05Z"), new Actor(ActorKind.TOOL, "agent-1"), "v1",
                new dev.tether.core.event.ToolCallStarted("c1", "s-1/3/c1", 2, 1));
        var startedWithItsExternalKey = new Event("e-6", "s-1", "acme", 6, Instant.parse("2026-12-01T10:00:06Z"),
                new Actor(ActorKind.TOOL, "agent-1"), "v1",
                new dev.tether.core.event.ToolCallStarted("c2", "s-1/3/c2", 2, 1, "s-1/3/c2~1796119200000"));
        var plain = new Event("e-1", "s-3", "acme", 1, Instant.parse("2026-12-01T10:00:00Z"), new Actor(ActorKind.USER, "agent-1"), "v1",
                new dev.tether.core.event.SessionStarted("o", "", "m", "v1", dev.tether.core.event.ToolMode.WRITE, java.util.List.of(),
                        null, null));

        var subagent = new Event("e-1", "s-4", "acme", 1, Instant.parse("2026-12-01T10:00:00Z"), new Actor(ActorKind.USER, "agent-1"),
                "v1", new dev.tether.core.event.SessionStarted("o", "", "m", "v1", dev.tether.core.event.ToolMode.READ_ONLY,
                        java.util.List.of(), 100L, "s-1", java.util.List.of(), Instant.parse("2026-12-01T09:00:00.007Z")));
        var result = new Event("e-9", "s-1", "acme", 9, Instant.parse("2026-12-01T10:00:09Z"), new Actor(ActorKind.SYSTEM, "session-service"),
                "v1", new dev.tether.core.event.SubagentResult("s-4", "done", Instant.parse("2026-12-01T09:00:00.007Z")));
        var legacyResult = new Event("e-9", "s-1", "acme", 9, Instant.parse("2026-12-01T10:00:09Z"),
                new Actor(ActorKind.SYSTEM, "session-service"), "v1", new dev.tether.core.event.SubagentResult("s-4", "done"));

        for (Event event : java.util.List.of(start, fork, started, startedWithItsExternalKey, plain, subagent, result, legacyResult)) {
            assertThat(EventAvro.fromAvro(SessionEvent.fromByteBuffer(EventAvro.toAvro(event).toByteBuffer()))).as(event.type())
                    .isEqualTo(event);
        }
        assertThat(EventAvro.toAvro(plain).getPayload().getSessionStarted().getHarnessTools()).isNull();
        assertThat(EventAvro.toAvro(plain).getPayload().getSessionStarted().getParentStartedAt()).isNull();
        assertThat(EventAvro.toAvro(legacyResult).getPayload().getSubagentResult().getParentStartedAt()).isNull();
    }

    @Test
    void frameworkState_roundTrips_inlineAndOffloaded() throws Exception {
        var inline = new Event("e-6", "s-1", "acme", 6, Instant.parse("2026-12-02T10:00:00Z"), new Actor(ActorKind.MODEL, "agent-1"), "v1",
                new FrameworkState("langgraph", "checkpoint", "[\"\",\"cp-1\"]", "{\"v\":1,\"versions_seen\":{}}"));
        var ref = BlobRef.of("b".repeat(64), 70_000, "{\"v\":1,\"chan");
        var offloaded = new Event("e-7", "s-1", "acme", 7, Instant.parse("2026-12-02T10:00:01Z"), new Actor(ActorKind.MODEL, "agent-1"),
                "v1", new FrameworkState("langgraph", "writes", "cp-1", "{\"v\":1,\"chan", ref));

        for (Event event : java.util.List.of(inline, offloaded)) {
            SessionEvent avro = EventAvro.toAvro(event);
            assertThat(avro.getType()).isEqualTo("framework_state");
            assertThat(EventAvro.fromAvro(SessionEvent.fromByteBuffer(avro.toByteBuffer()))).as(event.eventId()).isEqualTo(event);
        }
        assertThat(EventAvro.toAvro(offloaded).getPayload().getFrameworkState().getArtifact().getSha256()).isEqualTo("b".repeat(64));
        assertThat(EventAvro.toAvro(inline).getPayload().getFrameworkState().getArtifact()).isNull();
    }

    @Test
    void approvalDenied_roundTripsWithItsExpiredFlag_setOrNot() throws Exception {
        for (Boolean expired : Arrays.asList(true, false, null)) {
            var event = new Event("e-4", "s-1", "acme", 4, Instant.parse("2026-11-29T10:00:00Z"), new Actor(ActorKind.SYSTEM,
                    "approval-service"), "v1", new ApprovalDenied("c1", ApprovalScope.ONCE, null, null, "approval-service", "late", expired));

            SessionEvent read = SessionEvent.fromByteBuffer(EventAvro.toAvro(event).toByteBuffer());

            assertThat(read.getPayload().getApprovalDenied().getExpired()).as("expired " + expired).isEqualTo(expired);
            assertThat(EventAvro.fromAvro(read)).as("expired " + expired).isEqualTo(event);
        }
    }

    @Test
    void approvalDenied_writtenWithTheReleaseBeforeTheField_readsWithExpiredNull() {
        var event = new Event("e-4", "s-1", "acme", 4, Instant.parse("2026-11-29T10:00:00Z"), new Actor(ActorKind.SYSTEM,
                "approval-service"), "v1", ApprovalDenied.expiry("c1", "approval-service", "late"));

        Event read = EventAvro.fromAvro(ReleasedSchemas.asWrittenBy("v2", EventAvro.toAvro(event)));

        assertThat(read.payload()).isEqualTo(new ApprovalDenied("c1", ApprovalScope.ONCE, null, null, "approval-service", "late", null));
    }

    @Test
    void approvalGranted_neverSaysExpired() {
        var event = new Event("e-4", "s-1", "acme", 4, Instant.parse("2026-11-29T10:00:00Z"), new Actor(ActorKind.APPROVER, "alice"),
                "v1", new ApprovalGranted("c1", ApprovalScope.ONCE, null, null, "alice", "fine"));

        assertThat(EventAvro.toAvro(event).getPayload().getApprovalGranted().getExpired()).isNull();
    }

    @Test
    void aTypeWithoutItsPayloadField_readsAsUnknown() {
        var avro = EventAvro.toAvro(new Event("e-5", "s-1", "acme", 5, Instant.parse("2026-11-29T10:00:00Z"),
                new Actor(ActorKind.APPROVER, "alice"), "v1", new ToolOutcomeResolved("c1", OutcomeResolution.ABANDON, "alice", "")));
        avro.getPayload().setToolOutcomeResolved(null);

        assertThat(EventAvro.fromAvro(avro).payload()).isEqualTo(new UnknownEvent(ToolOutcomeResolved.TYPE));
    }
}
