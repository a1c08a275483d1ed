package dev.tether.core.id;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

class StoreKeyTest {

    /** The stores' order: the keys' UTF-8 bytes compared unsigned, as RocksDB and the in-memory stores compare them. */
    private static final Comparator<String> BYTE_ORDER = (a, b) -> Arrays.compareUnsigned(bytes(a), bytes(b));

    @Test
    void aKey_isItsPartsJoinedByNul_byteForByte() {
        // the bytes stores restored from changelogs hold: they never change
        assertThat(bytes(StoreKey.of("s1", "c1"))).containsExactly('s', '1', 0, 'c', '1');
        assertThat(bytes(StoreKey.prefix("t1"))).containsExactly('t', '1', 0);
        assertThat(StoreKey.of("t1", StoreKey.sortable(1700000000000L), "s1", StoreKey.sortable(7)))
                .isEqualTo("t1\u00000000001700000000000\u0000s1\u00000000000000000000007");
    }

    @Test
    void aKeyParsesBackIntoItsParts() {
        assertThat(StoreKey.parts(StoreKey.of("t1", "0000000000000000042", "s1", ""))).containsExactly("t1", "0000000000000000042", "s1", "");
        assertThat(Long.parseLong(StoreKey.sortable(42))).isEqualTo(42);
    }

    @Test
    void aPrefixScan_findsExactlyTheKeysOfItsLeadingParts_asOneRun() {
        List<String> keys = new ArrayList<>(List.of(StoreKey.of("s1", "c1"), StoreKey.of("s1", "c2"), StoreKey.of("s10", "c1"),
                StoreKey.of("s1!", "c1"), StoreKey.of("s", "1"), StoreKey.of("s0", "x"), StoreKey.of("s1", ""), StoreKey.of("s2", "a"),
                "s1", StoreKey.of("s1", "c1", "deeper")));
        keys.sort(BYTE_ORDER);
        String prefix = StoreKey.prefix("s1");
        List<Integer> at = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            if (keys.get(i).startsWith(prefix)) {
                at.add(i);
            }
        }
        assertThat(at).hasSize(4);
        assertThat(at.get(at.size() - 1) - at.get(0)).as("one contiguous run in byte order").isEqualTo(at.size() - 1);
        assertThat(keys.subList(at.get(0), at.get(0) + at.size()))
                .containsExactly(StoreKey.of("s1", ""), StoreKey.of("s1", "c1"), StoreKey.of("s1", "c1", "deeper"), StoreKey.of("s1", "c2"));
        // a session whose id only starts like s1 is not in s1's range
        assertThat(StoreKey.of("s10", "c1")).doesNotStartWith(prefix);
        assertThat(StoreKey.of("s1!", "c1")).doesNotStartWith(prefix);
    }

    @Test
    void sortableNumbers_sortNumerically_withinTheirLeadingParts() {
        List<String> keys = new ArrayList<>();
        long[] times = {5, 1_700_000_000_000L, 42, 0, Long.MAX_VALUE, 999};
        for (long t : times) {
            keys.add(StoreKey.of("t1", StoreKey.sortable(t), "s1"));
        }
        keys.add(StoreKey.of("t10", StoreKey.sortable(0), "s1"));
        keys.sort(BYTE_ORDER);
        assertThat(keys).extracting(k -> StoreKey.parts(k).get(0) + ":" + Long.parseLong(StoreKey.parts(k).get(1)))
                .containsExactly("t1:0", "t1:5", "t1:42", "t1:999", "t1:1700000000000", "t1:" + Long.MAX_VALUE, "t10:0");
    }

    private static byte[] bytes(String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }
}
