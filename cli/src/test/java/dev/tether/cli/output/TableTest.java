package dev.tether.cli.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class TableTest {

    @Test
    void columnsAreAsWideAsTheirWidestCell_twoSpacesApart_emptyCellsADash() {
        var out = new StringWriter();
        Table.of("SESSION", "LAST SEQ", "WORKER").row("demo-1", 12, "worker-a").row("a-much-longer-id", 1, null)
                .print(new PrintWriter(out, true));

        assertThat(out.toString().lines()).containsExactly(
                "SESSION           LAST SEQ  WORKER",
                "demo-1            12        worker-a",
                "a-much-longer-id  1         -");
    }

    @Test
    void aRowOfTheWrongWidth_isABug() {
        assertThatThrownBy(() -> Table.of("A", "B").row("x")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void fields_alignValues_continueLinesUnderTheFirst_andLeaveNullsOut() {
        var out = new StringWriter();
        Fields.of().add("session", "demo-1").add("worker", null).addLines("plan", List.of("1. a", "2. b")).addLines("calls", List.of())
                .print(new PrintWriter(out, true));

        assertThat(out.toString().lines()).containsExactly(
                "session  demo-1",
                "plan     1. a",
                "         2. b",
                "calls    none");
    }

    @Test
    void progressOffATerminal_printsALineAtMostOncePerInterval_butAForcedOneAtOnce() {
        var err = new StringWriter();
        Progress progress = new Output(new PrintWriter(new StringWriter()), new PrintWriter(err, true), false, false)
                .progress("replay", Duration.ofHours(1));

        progress.update("10 events");
        progress.update("20 events");
        progress.force("3 sessions still open");
        progress.done();

        assertThat(err.toString().lines()).containsExactly("replay: 10 events", "replay: 3 sessions still open");
    }

    @Test
    void progressOnATerminal_rewritesOneLine_andEndsIt() {
        var err = new StringWriter();
        Progress progress = new Output(new PrintWriter(new StringWriter()), new PrintWriter(err, true), false, true)
                .progress("replay", Duration.ofHours(1));

        progress.force("100 events");
        progress.force("2 events");
        progress.done();

        assertThat(err.toString()).isEqualTo("\rreplay: 100 events\rreplay: 2 events  \n");
    }
}
