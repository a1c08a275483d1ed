package dev.tether.core.id;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The derived ids are compared with ids already in logs, so their values are pinned: each expected value below was
 * computed by the code each shape replaced (the sequencer's {@code deterministicId}, the executor's
 * {@code resultEventId}, the approval machine's {@code id}, the client's {@code EventIds}) before it was replaced.
 */
class DerivedIdsTest {

    @Test
    void of_keepsTheSequencersAndTheExecutorsValues() {
        assertThat(DerivedIds.of("cmd-1", "session_claimed")).isEqualTo("7b2a5920-9894-3548-aea5-5a7bf65d581b");
        assertThat(DerivedIds.of("cmd-1", "session_resumed")).isEqualTo("ed044549-3a99-3a10-b05b-5352fdbc7ba0");
        assertThat(DerivedIds.of("cmd-1", "session_migrated")).isEqualTo("fb709b0c-b473-3715-b814-d54f0a772c84");
        assertThat(DerivedIds.of("child-1", "subagent_result")).isEqualTo("150ddf74-eb82-32e6-94a0-fd2c84746d5a");
        assertThat(DerivedIds.of("evt-1", "command")).isEqualTo("89e3c083-12f8-3a8a-88d2-bcbb0911642e");
        // the executor's tool_result of key s1/5/c1
        assertThat(DerivedIds.of("s1/5/c1", "tool_result")).isEqualTo("a81c3006-0810-3800-a090-b6e7a5d964a1");
        assertThat(DerivedIds.of("sé/ß", "tool_result")).isEqualTo("2a762da5-fd56-352c-b5da-cedf8170c7b0");
    }

    @Test
    void of_isJavasNameBasedUuidOfBasisSlashType() {
        assertThat(DerivedIds.of("b", "t")).isEqualTo(UUID.nameUUIDFromBytes("b/t".getBytes(StandardCharsets.UTF_8)).toString());
    }

    @Test
    void ofParts_keepsTheApprovalServicesValues() {
        assertThat(DerivedIds.ofParts("s1", "c1", "approval_requested")).isEqualTo("1df1c6f1-267d-33fc-9b70-df91a653c636");
        assertThat(DerivedIds.ofParts("s1", "c1", "tool_call_authorized")).isEqualTo("55c1c11c-4716-31f4-989b-ee2be84f885a");
        assertThat(DerivedIds.ofParts("s1", "c1", "tool_result", "expired")).isEqualTo("337cd68c-685e-31e4-9644-f6bd519a02b6");
        assertThat(DerivedIds.ofParts("s1", "c1", "tool_result", "cancelled")).isEqualTo("f418dca8-e3b1-3b13-ad13-ab8a9c14c955");
        assertThat(DerivedIds.ofParts("s1", "decision", "7", "alice", "GRANT_SESSION", "write_file", "src/**", "fine"))
                .isEqualTo("a0e090cb-0e31-345a-aaea-7b4762a0e59a");
    }

    @Test
    void ofParts_tellsApartPartsThatASlashWouldJoinAlike() {
        assertThat(DerivedIds.ofParts("a/b", "c")).isNotEqualTo(DerivedIds.ofParts("a", "b/c"));
        assertThat(DerivedIds.ofParts("a", "b")).isNotEqualTo(DerivedIds.of("a", "b"));
    }

    @Test
    void ofClient_keepsTheSdksValues() {
        // EventIds.of("demo-1", "turn-3", 0); computed independently with Python's uuid.uuid3 too
        assertThat(DerivedIds.ofClient("demo-1", "turn-3", "0")).isEqualTo("06d08208-279b-3a4c-a53d-746a738ec850");
        // the SDK's session_started and session_forked ids
        assertThat(DerivedIds.ofClient("demo-1", "session_started", "{\"objective\":\"x\"}"))
                .isEqualTo("215931ed-0f15-333d-8069-349b629e4a0b");
        assertThat(DerivedIds.ofClient("child-1", "session_forked", "demo-1", "12")).isEqualTo("7dc92fa7-7e8f-36dd-8cb3-9e8aa21a12d1");
    }

    @Test
    void everyShape_isAnRfc4122Version3Uuid() {
        // RFC 4122's DNS namespace and the value Python's uuid.uuid3(NAMESPACE_DNS, "python.org") gives
        assertThat(DerivedIds.nameBased(UUID.fromString("6ba7b810-9dad-11d1-80b4-00c04fd430c8"), "python.org"))
                .isEqualTo(UUID.fromString("6fa459ea-ee8a-3ca4-894e-db77e160355e"));
        for (String id : new String[] {DerivedIds.of("b", "t"), DerivedIds.ofParts("a", "b"), DerivedIds.ofClient("s", "step", "0")}) {
            assertThat(UUID.fromString(id)).as(id).returns(3, UUID::version).returns(2, UUID::variant);
        }
    }

    @Test
    void theSameCause_givesTheSameId_andAnotherCauseAnother() {
        var ids = new HashSet<String>();
        for (String basis : new String[] {"cmd-1", "cmd-2", "s1/5/c1"}) {
            for (String type : new String[] {"session_claimed", "session_resumed", "tool_result"}) {
                assertThat(DerivedIds.of(basis, type)).isEqualTo(DerivedIds.of(basis, type));
                ids.add(DerivedIds.of(basis, type));
                ids.add(DerivedIds.ofParts(basis, type));
                ids.add(DerivedIds.ofClient(basis, type));
            }
        }
        assertThat(ids).hasSize(3 * 3 * 3);
    }
}
