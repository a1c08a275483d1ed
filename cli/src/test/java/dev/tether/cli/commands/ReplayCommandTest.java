package dev.tether.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.cli.kafka.ReplayReport;
import dev.tether.cli.output.Output;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** How {@code tether replay} prints its report; the replay itself runs in {@code TetherCliIT}. */
class ReplayCommandTest {

    @Test
    void theReport_listsTheSessionsOfEveryVerdict_aheadIncluded() {
        var comparison = new ReplayReport.Comparison("session-checkpoints", 1, List.of("d (first in field objective)"), List.of("b"),
                List.of("a"), List.of("m"), Duration.ofMillis(120));
        var report = new ReplayReport("session-events", 6, 10, 9, 1, 5, 1, Duration.ofMillis(900), List.of("g: seq 3 follows seq 1"),
                Optional.of(comparison), Optional.empty());
        var out = new StringWriter();

        ReplayCommand.print(new Output(new PrintWriter(out, true), new PrintWriter(new StringWriter()), false, false), report);

        assertThat(out.toString()).contains("checkpoints  1 equal to session-checkpoints, 1 differ, 1 behind, 1 ahead, 1 missing",
                "problems     g: seq 3 follows seq 1\n", "differ       d (first in field objective)\n", "behind       b\n",
                "ahead        a\n", "missing      m\n");
    }
}
