package dev.tether.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChildJvmTest {

    private static final Duration PATIENCE = Duration.ofMinutes(1);

    /** Prints its arguments, one per line; then, if asked to, a flood of lines; then sleeps until it is killed. */
    public static final class Printer {
        public static void main(String[] args) throws InterruptedException {
            boolean flood = false;
            for (String arg : args) {
                if (arg.equals("--flood")) {
                    flood = true;
                } else {
                    System.out.println(arg);
                }
            }
            for (int i = 0; flood && i < 200_000; i++) {
                System.out.println("flood " + i);
            }
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    @Test
    void killedAtALine_everyLineBeforeItIsKept() throws Exception {
        try (ChildJvm child = ChildJvm.start(List.of(Printer.class.getName(), "one", "two", "PAUSED"), Map.of())) {
            child.killAt("PAUSED", PATIENCE);

            assertThat(child.process().isAlive()).isFalse();
            assertThat(child.lines()).containsExactly("one", "two", "PAUSED");
        }
    }

    /** The CI failure this class fixes: killed while it still printed, the output was cut with "Stream closed". */
    @Test
    void killedWhilePrinting_itsOutputEndsCleanlyWithAPrefixOfWhatItPrinted() throws Exception {
        for (int round = 0; round < 3; round++) {
            try (ChildJvm child = ChildJvm.start(List.of(Printer.class.getName(), "PAUSED", "--flood"), Map.of())) {
                child.killAt("PAUSED", PATIENCE);

                List<String> lines = child.lines();
                assertThat(lines).first().isEqualTo("PAUSED");
                for (int i = 1; i < lines.size(); i++) {
                    assertThat(lines.get(i)).isEqualTo("flood " + (i - 1));
                }
            }
        }
    }

    @Test
    void aLineNeverPrinted_failsOnceTheProcessEnds_namingWhatItPrinted() throws Exception {
        try (ChildJvm child = ChildJvm.start(List.of("no.such.Main"), Map.of())) {
            assertThatThrownBy(() -> child.awaitLine("PAUSED", PATIENCE)).isInstanceOf(AssertionError.class)
                    .hasMessageContaining("did not print 'PAUSED'").hasMessageContaining("no.such.Main");
            assertThatThrownBy(() -> child.awaitExit(PATIENCE)).isInstanceOf(AssertionError.class).hasMessageContaining("exited with 1");
        }
    }
}
