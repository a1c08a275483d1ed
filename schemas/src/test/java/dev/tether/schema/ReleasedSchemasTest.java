package dev.tether.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.avro.Actor;
import dev.tether.avro.ActorKind;
import dev.tether.avro.ApprovalDecision;
import dev.tether.avro.ApprovalScope;
import dev.tether.avro.Checkpoint;
import dev.tether.avro.EventPayload;
import dev.tether.avro.FrameworkState;
import dev.tether.avro.HarnessTool;
import dev.tether.avro.SessionStarted;
import dev.tether.avro.ToolCallStarted;
import dev.tether.avro.ToolMode;
import dev.tether.avro.SessionEvent;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.junit.jupiter.api.Test;

class ReleasedSchemasTest {

    @Test
    void theReleasedSnapshots_shipInTheJar_asTheyWereReleased() {
        var v1 = ReleasedSchemas.of("v1", "Checkpoint");

        assertThat(v1.getFullName()).isEqualTo("dev.tether.avro.Checkpoint");
        assertThat(v1.getField("schemaVersion")).isNotNull();
        assertThat(v1.getField("decisions")).as("added after v1").isNull();
        assertThat(Checkpoint.getClassSchema().getField("decisions")).isNotNull();
    }

    @Test
    void anApprovalDenial_writtenWithV2_readsToday_withExpiredNull_andOtherwiseUnchanged() {
        SessionEvent denial = expiryDenial();

        SessionEvent read = ReleasedSchemas.asWrittenBy("v2", denial);

        assertThat(read.getPayload().getApprovalDenied().getExpired()).as("v2 had no expired field").isNull();
        denial.getPayload().getApprovalDenied().setExpired(null);
        assertThat(read).isEqualTo(denial);
    }

    @Test
    void anApprovalDenial_writtenToday_readsWithV2_withoutTheField() throws IOException {
        var out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new SpecificDatumWriter<>(SessionEvent.getClassSchema()).write(expiryDenial(), encoder);
        encoder.flush();

        GenericRecord v2 = new GenericDatumReader<GenericRecord>(SessionEvent.getClassSchema(), ReleasedSchemas.of("v2", "SessionEvent"))
                .read(null, DecoderFactory.get().binaryDecoder(out.toByteArray(), null));

        GenericRecord denied = (GenericRecord) ((GenericRecord) v2.get("payload")).get("approvalDenied");
        assertThat(denied.getSchema().getField("expired")).isNull();
        assertThat(denied.get("callId")).hasToString("c1");
        assertThat(denied.get("approver")).hasToString("approval-service");
    }

    private static SessionEvent expiryDenial() {
        return SessionEvent.newBuilder().setEventId("e-4").setSessionId("s-1").setTenantId("acme").setSeq(4)
                .setOccurredAt(Instant.parse("2026-11-29T10:00:00Z")).setActor(new Actor(ActorKind.SYSTEM, "approval-service"))
                .setHarnessVersion("v1").setType("approval_denied")
                .setPayload(EventPayload.newBuilder().setApprovalDenied(new ApprovalDecision("c1", ApprovalScope.ONCE, null, null,
                        "approval-service", "no approver decided within 10m", true)).build())
                .build();
    }

    @Test
    void aSessionStart_writtenWithV3_readsToday_withNoHarnessTools() {
        SessionEvent start = harnessStart();

        SessionEvent read = ReleasedSchemas.asWrittenBy("v3", start);

        assertThat(read.getPayload().getSessionStarted().getHarnessTools()).as("v3 had no harnessTools").isNull();
        start.getPayload().getSessionStarted().setHarnessTools(null);
        assertThat(read).isEqualTo(start);
    }

    @Test
    void harnessToolsAndAToolCallStarted_writtenToday_readWithV3_asNoToolsAndAnUnknownType() throws IOException {
        GenericRecord start = readWithV3(harnessStart());
        GenericRecord started = readWithV3(toolCallStarted());

        GenericRecord payload = (GenericRecord) ((GenericRecord) start.get("payload")).get("sessionStarted");
        assertThat(payload.getSchema().getField("harnessTools")).isNull();
        assertThat(payload.get("objective")).hasToString("fix the bug");
        assertThat(started.get("type")).hasToString("tool_call_started");
        GenericRecord empty = (GenericRecord) started.get("payload");
        assertThat(empty.getSchema().getField("toolCallStarted")).isNull();
        assertThat(empty.getSchema().getFields()).allSatisfy(f -> assertThat(empty.get(f.name())).as(f.name()).isNull());
    }

    @Test
    void aFrameworkState_writtenToday_readsWithV3_asAnUnknownTypeWithNoPayload() throws IOException {
        GenericRecord state = readWithV3(frameworkState());

        assertThat(state.get("type")).hasToString("framework_state");
        assertThat(state.get("seq")).isEqualTo(6L);
        GenericRecord empty = (GenericRecord) state.get("payload");
        assertThat(empty.getSchema().getField("frameworkState")).isNull();
        assertThat(empty.getSchema().getFields()).allSatisfy(f -> assertThat(empty.get(f.name())).as(f.name()).isNull());
    }

    private static GenericRecord readWithV3(SessionEvent event) throws IOException {
        var out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new SpecificDatumWriter<>(SessionEvent.getClassSchema()).write(event, encoder);
        encoder.flush();
        return new GenericDatumReader<GenericRecord>(SessionEvent.getClassSchema(), ReleasedSchemas.of("v3", "SessionEvent"))
                .read(null, DecoderFactory.get().binaryDecoder(out.toByteArray(), null));
    }

    private static SessionEvent harnessStart() {
        return SessionEvent.newBuilder().setEventId("e-1").setSessionId("s-1").setTenantId("acme").setSeq(1)
                .setOccurredAt(Instant.parse("2026-12-01T10:00:00Z")).setActor(new Actor(ActorKind.USER, "agent-1"))
                .setHarnessVersion("v1").setType("session_started")
                .setPayload(EventPayload.newBuilder().setSessionStarted(SessionStarted.newBuilder().setObjective("fix the bug")
                        .setSystemPrompt("").setModelId("m").setHarnessVersion("v1").setToolMode(ToolMode.WRITE).setConstraints(List.of())
                        .setHarnessTools(List.of(new HarnessTool("send_email", true, true, false))).build()).build())
                .build();
    }

    private static SessionEvent toolCallStarted() {
        return SessionEvent.newBuilder().setEventId("e-5").setSessionId("s-1").setTenantId("acme").setSeq(5)
                .setOccurredAt(Instant.parse("2026-12-01T10:00:05Z")).setActor(new Actor(ActorKind.TOOL, "agent-1"))
                .setHarnessVersion("v1").setType("tool_call_started")
                .setPayload(EventPayload.newBuilder().setToolCallStarted(new ToolCallStarted("c1", "s-1/3/c1", 1L, 1, "s-1/3/c1~1796119200000")).build())
                .build();
    }

    private static SessionEvent frameworkState() {
        return SessionEvent.newBuilder().setEventId("e-6").setSessionId("s-1").setTenantId("acme").setSeq(6)
                .setOccurredAt(Instant.parse("2026-12-01T10:00:06Z")).setActor(new Actor(ActorKind.MODEL, "agent-1"))
                .setHarnessVersion("v1").setType("framework_state")
                .setPayload(EventPayload.newBuilder().setFrameworkState(new FrameworkState("langgraph", "checkpoint", "cp-1",
                        "{\"v\":1}", null)).build())
                .build();
    }

    @Test
    void anUnknownSnapshot_isRefusedByName() {
        assertThatThrownBy(() -> ReleasedSchemas.of("v0", "Checkpoint"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no released schema /released/v0/Checkpoint.avsc");
    }
}
