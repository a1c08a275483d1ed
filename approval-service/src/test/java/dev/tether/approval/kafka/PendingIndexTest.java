package dev.tether.approval.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.approval.domain.ApprovalItem;
import dev.tether.approval.domain.ApprovalItem.Kind;
import dev.tether.approval.domain.ApprovalItem.Status;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class PendingIndexTest {

    @Test
    void aKey_isTenantRequestedAtSessionAndSeq_joinedByNul_withPaddedNumbers() {
        // the bytes the store's changelog holds: an index restored from it must still be read
        String key = PendingIndex.key(item("acme", "s1", 7, 1_700_000_000_123L));
        assertThat(key).isEqualTo("acme" + '\u0000' + "0000001700000000123" + '\u0000' + "s1" + '\u0000' + "0000000000000000007");
        assertThat(PendingIndex.parse(key)).isEqualTo(new PendingIndex.Entry("acme", Instant.ofEpochMilli(1_700_000_000_123L), "s1", 7));
    }

    @Test
    void aTenantsPrefix_coversItsKeysOnly_oldestFirstInByteOrder() {
        List<String> keys = new ArrayList<>(List.of(PendingIndex.key(item("acme", "s2", 3, 9_000)), PendingIndex.key(item("acme2", "s1", 1, 1)),
                PendingIndex.key(item("acme", "s1", 12, 100_000)), PendingIndex.key(item("acme", "s9", 2, 10))));
        keys.sort((a, b) -> Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8)));

        assertThat(keys.stream().filter(k -> k.startsWith(PendingIndex.prefix("acme"))).map(PendingIndex::parse).map(PendingIndex.Entry::seq))
                .containsExactly(2L, 3L, 12L);
        assertThat(PendingIndex.parse(keys.get(3)).tenantId()).isEqualTo("acme2");
    }

    private static ApprovalItem item(String tenant, String session, long seq, long requestedAtMillis) {
        return new ApprovalItem(session, seq, Kind.APPROVAL, Status.PENDING, tenant, "c1", "write_file", "{}", "shown", null, seq - 1,
                Instant.ofEpochMilli(requestedAtMillis), "model", "agent", null, null, null, false);
    }
}
