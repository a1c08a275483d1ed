package dev.tether.kit.service.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FirstInOrderTest {

    @Test
    void keepsTheFirstLimitInOrder_whateverOrderTheyAreOfferedIn() {
        var random = new Random(7);
        for (int round = 0; round < 100; round++) {
            var offered = new ArrayList<Integer>();
            for (int i = 0; i < random.nextInt(40); i++) {
                offered.add(random.nextInt(1000));
            }
            int limit = 1 + random.nextInt(10);
            var first = new FirstInOrder<Integer>(Comparator.reverseOrder(), limit);
            offered.forEach(first::offer);

            var expected = new ArrayList<>(offered);
            expected.sort(Collections.reverseOrder());
            assertThat(first.sorted()).as("%s, limit %d", offered, limit).isEqualTo(expected.subList(0, Math.min(limit, expected.size())));
        }
    }

    @Test
    void aPageHoldsAtLeastOne() {
        assertThatThrownBy(() -> new FirstInOrder<String>(Comparator.naturalOrder(), 0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new FirstInOrder<String>(Comparator.naturalOrder(), 1).sorted()).isEqualTo(List.of());
    }
}
