package dev.tether.approval.kafka;

import dev.tether.kit.kafka.StoreGoldenFiles;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The approval-service's session states as every version of their format wrote them: the golden files under
 * {@code src/test/resources/golden/approval-sessions/} ({@code v0-*}: written by the releases before store formats had
 * versions) read back as the samples, and each version writes the samples as its files ({@link StoreGoldenFiles}).
 */
class StoreGoldenTest {

    @Test
    void sessions_readAndWriteAsTheGoldenFilesOfEveryVersion() {
        StoreGoldenFiles.check(ApprovalStoreFormats.SESSIONS, Path.of("src/test/resources/golden", ApprovalStores.SESSIONS),
                Map.of("full", StoreSamples.full(), "minimal", StoreSamples.started()));
    }

    @Test
    void aStateWithHarnessRunCalls_readsBack_andIsNeverWrittenAsVersion1_whichWouldDropThem() {
        var call = new dev.tether.approval.domain.SessionApprovals.OpenCall("send_email", "{}", 2, "acme-agent",
                dev.tether.approval.domain.SessionApprovals.Stage.STARTED, null, null, null, null, null,
                dev.tether.core.event.CallRunner.HARNESS);
        var state = new dev.tether.approval.domain.SessionApprovals("s-h", "acme", dev.tether.core.event.ToolMode.WRITE, "model-x", 3,
                false, 0, Map.of("c1", call), java.util.List.of(), java.util.List.of(),
                java.util.List.of(new dev.tether.core.event.HarnessTool("send_email", true, true, false)), null);

        byte[] stored = ApprovalStoreFormats.SESSIONS.serialize("s", state);
        org.assertj.core.api.Assertions.assertThat(ApprovalStoreFormats.SESSIONS.deserialize("s", stored)).isEqualTo(state);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ApprovalStoreFormats.SESSIONS.writing(1).serialize("s", state))
                .isInstanceOf(dev.tether.kit.kafka.StoreFormatException.class).hasMessageContaining("harness-run tools");
    }

    @Test
    void aStatesStart_readsBack_andVersion2_whichCannotHoldIt_readsBackWithout() {
        var started = java.time.Instant.parse("2026-12-05T10:00:00.123Z");
        var state = new dev.tether.approval.domain.SessionApprovals("s-t", "acme", dev.tether.core.event.ToolMode.WRITE, "model-x", 1,
                false, 0, Map.of(), java.util.List.of(), java.util.List.of(), java.util.List.of(), started);

        org.assertj.core.api.Assertions.assertThat(ApprovalStoreFormats.SESSIONS.deserialize("s",
                ApprovalStoreFormats.SESSIONS.serialize("s", state)).startedAt()).isEqualTo(started);
        org.assertj.core.api.Assertions.assertThat(ApprovalStoreFormats.SESSIONS.deserialize("s",
                ApprovalStoreFormats.SESSIONS.writing(2).serialize("s", state)).startedAt()).isNull();
    }

    @Test
    void aCallsShownHash_readsBack_andVersion3_whichCannotHoldIt_readsBackWithout() {
        String hash = "b".repeat(64);
        var call = new dev.tether.approval.domain.SessionApprovals.OpenCall("write_file", "{}", 2, "acme-agent",
                dev.tether.approval.domain.SessionApprovals.Stage.AWAITING_APPROVAL, "the diff", null, null, null, null,
                dev.tether.core.event.CallRunner.EXECUTOR, hash);
        var state = new dev.tether.approval.domain.SessionApprovals("s-s", "acme", dev.tether.core.event.ToolMode.WRITE, "model-x", 3,
                false, 0, Map.of("c1", call), java.util.List.of(), java.util.List.of(), java.util.List.of(), null);

        org.assertj.core.api.Assertions.assertThat(ApprovalStoreFormats.SESSIONS.deserialize("s",
                ApprovalStoreFormats.SESSIONS.serialize("s", state))).isEqualTo(state);
        org.assertj.core.api.Assertions.assertThat(ApprovalStoreFormats.SESSIONS.deserialize("s",
                ApprovalStoreFormats.SESSIONS.writing(3).serialize("s", state)).calls().get("c1").shownSha256()).isNull();
    }
}
