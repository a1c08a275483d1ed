package dev.tether.session.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.core.event.ResumeReason;
import dev.tether.core.event.TokenUsage;
import dev.tether.core.event.ToolMode;
import dev.tether.session.domain.SessionHead;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The sequencer's head as its store keeps it: versioned; byte for byte what earlier releases wrote when told to write
 * version 0; and a head written before it kept the last interruption (versions 0 and 1) reads as never interrupted.
 */
class SessionHeadJsonTest {

    @Test
    void aHead_isStoredVersioned_andReadsBack() {
        SessionHead head = head(6);

        byte[] stored = SequencerStoreFormats.HEADS.serialize("heads", head);

        assertThat(new String(stored, StandardCharsets.UTF_8)).isEqualTo("{\"version\":5," + BEFORE_VERSIONS.substring(1, BEFORE_VERSIONS.length() - 1)
                .replace("\"outcomeUnknown\":false}", "\"outcomeUnknown\":false,\"runBy\":\"EXECUTOR\",\"attempts\":0,\"running\":false,"
                        + "\"retrySeq\":0,\"requestedBy\":null}")
                + ",\"lastInterruptSeq\":6,\"harnessTools\":[],\"startedAt\":null,\"parentStartedAt\":null,\"lastEventAt\":null}");
        assertThat(SequencerStoreFormats.HEADS.deserialize("heads", stored)).isEqualTo(head);
    }

    @Test
    void toldToWriteVersion0_aHeadIsStoredAsBefore_withoutWhatVersion0CannotHold() {
        assertThat(new String(SequencerStoreFormats.HEADS.writing(0).serialize("heads", head(0)), StandardCharsets.UTF_8))
                .isEqualTo(BEFORE_VERSIONS);
    }

    @Test
    void aHeadStoredBeforeItKeptTheLastInterruption_readsAsNeverInterrupted() {
        SessionHead read = SequencerStoreFormats.HEADS.deserialize("heads", BEFORE_VERSIONS.getBytes(StandardCharsets.UTF_8));

        assertThat(read).isEqualTo(head(0));
        assertThat(read.lastInterruptSeq()).isZero();
    }

    @Test
    void aHeadWithHarnessRunTools_readsBack_andIsNeverWrittenAsVersion2_whichWouldDropThem() {
        var tools = java.util.List.of(new dev.tether.core.event.HarnessTool("send_email", true, true, false));
        SessionHead head = new SessionHead("s1", "acme", "agent-1", 7, 2, "worker-2", "model-x", "v1", ToolMode.WRITE, false,
                new TokenUsage(10, 5), 1000L, null,
                Map.of("c1", new SessionHead.OpenCall("send_email", 5, SessionHead.Approval.NONE, true, false,
                        dev.tether.core.event.CallRunner.HARNESS, 2, true, 6, "agent-1")),
                "claim-2", ResumeReason.CRASH, 0, tools);

        assertThat(SequencerStoreFormats.HEADS.deserialize("heads", SequencerStoreFormats.HEADS.serialize("heads", head)))
                .isEqualTo(head);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> SequencerStoreFormats.HEADS.writing(2).serialize("heads", head))
                .isInstanceOf(dev.tether.kit.kafka.StoreFormatException.class).hasMessageContaining("harness-run tools");
        assertThat(new String(SequencerStoreFormats.HEADS.writing(2).serialize("heads", head(6)), StandardCharsets.UTF_8))
                .as("a head without them is written as version 2 wrote it")
                .isEqualTo("{\"version\":2," + BEFORE_VERSIONS.substring(1, BEFORE_VERSIONS.length() - 1) + ",\"lastInterruptSeq\":6}");
    }

    private static SessionHead head(long lastInterruptSeq) {
        return new SessionHead("s1", "acme", "agent-1", 7, 2, "worker-2", "model-x", "v1", ToolMode.WRITE, false,
                new TokenUsage(10, 5), 1000L, null,
                Map.of("c1", new SessionHead.OpenCall("edit_file", 5, SessionHead.Approval.REQUESTED, false, false)),
                "claim-2", ResumeReason.CRASH, lastInterruptSeq);
    }

    /** The head as the releases before store formats had versions wrote it. */
    private static final String BEFORE_VERSIONS = "{\"sessionId\":\"s1\",\"tenantId\":\"acme\",\"owner\":\"agent-1\","
        + "\"lastSeq\":7,\"epoch\":2,\"workerId\":\"worker-2\",\"modelId\":\"model-x\",\"harnessVersion\":\"v1\",\"toolMode\":\"WRITE\","
        + "\"closed\":false,\"used\":{\"inputTokens\":10,\"outputTokens\":5},\"tokenBudget\":1000,\"parentSessionId\":null,"
        + "\"openCalls\":{\"c1\":{\"tool\":\"edit_file\",\"requestSeq\":5,\"approval\":\"REQUESTED\",\"authorized\":false,"
        + "\"outcomeUnknown\":false}},\"lastClaimEventId\":\"claim-2\",\"lastClaimResume\":\"CRASH\"}";
}
