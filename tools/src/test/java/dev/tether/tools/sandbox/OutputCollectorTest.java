package dev.tether.tools.sandbox;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class OutputCollectorTest {

    private static OutputCollector.Captured collect(String output, int cap) throws InterruptedException {
        var collector = OutputCollector.start(new ByteArrayInputStream(output.getBytes(UTF_8)), cap, "test-drainer");
        assertThat(collector.awaitEnd(Duration.ofSeconds(5))).isTrue();
        return collector.text();
    }

    @Test
    void keepsOutputWithinTheCap_whole() throws InterruptedException {
        OutputCollector.Captured captured = collect("line 1\nline 2", 13);

        assertThat(captured.text()).isEqualTo("line 1\nline 2");
        assertThat(captured.truncated()).isFalse();
    }

    @Test
    void cutsOutputPastTheCap_afterTheLastWholeLine() throws InterruptedException {
        OutputCollector.Captured captured = collect("line 1\nline 2\nline 3 with a secret-value\n", 20);

        assertThat(captured.text()).isEqualTo("line 1\nline 2\n");
        assertThat(captured.discardedBytes()).isEqualTo(41 - 14);
    }

    @Test
    void cutsALongLine_afterItsLastSpace_orDropsIt() throws InterruptedException {
        assertThat(collect("word word secret-value-cut", 18).text()).isEqualTo("word word ");
        assertThat(collect("one-long-token-without-any-break", 10).text()).isEmpty();
    }

    @Test
    void neverSplitsACharacter_whenCutting() throws InterruptedException {
        OutputCollector.Captured captured = collect("é\nééé", 4);

        assertThat(captured.text()).isEqualTo("é\n");
        assertThat(captured.discardedBytes()).isEqualTo(6);
    }
}
