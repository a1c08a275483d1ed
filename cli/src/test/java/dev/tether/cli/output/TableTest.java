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
    void wideAndCombiningCharacters_areCountedByTheColumnsTheyTake_soTheColumnsStillLineUp() {
        var out = new StringWriter();
        Table.of("SESSION", "OBJECTIVE", "WORKER").row("会话-1", "重命名 Foo", "w-1").row("cafe\u0301", "ship 🚀", "w-2")
                .row("plain", "x", "w-3").print(new PrintWriter(out, true));

        assertThat(out.toString().lines()).containsExactly(
                "SESSION  OBJECTIVE   WORKER",
                "会话-1   重命名 Foo  w-1",
                "cafe\u0301     ship 🚀     w-2",
                "plain    x           w-3");
        assertThat(Table.width("会话-1")).isEqualTo(6);
        assertThat(Table.width("ship 🚀")).isEqualTo(7);
        assertThat(Table.width("cafe\u0301")).isEqualTo(4);
    }

    @Test
    void emojiOutsideTheSymbolsBlocks_andConjoiningHangulJamo_takeTheColumnsATerminalGivesThem() {
        assertThat(Table.width("\u2705 done")).isEqualTo(7); // ✅, as wcwidth (Unicode 9 and later) has it
        assertThat(Table.width("\u2B50\u274C\u23F3\u2615")).isEqualTo(8); // ⭐❌⏳☕
        assertThat(Table.width("\uD83E\uDEE0")).isEqualTo(2); // 🫠 U+1FAE0, Symbols and Pictographs Extended-A
        assertThat(Table.width("\uD83D\uDFE0")).isEqualTo(2); // 🟠 U+1F7E0
        assertThat(Table.width("\u1112\u1161\u11AB")).isEqualTo(2); // 한 decomposed: the vowel and the final take no column
    }

    @Test
    void controlCharactersInACell_areShownEscaped_soAStoredValueCannotDriveTheTerminalOrBreakARow() {
        var out = new StringWriter();
        Table.of("SESSION", "MODEL").row("a\u001b[2Jb", "m\r\nforged-row").row("c\u009b31m\u202e", "tab\there")
                .print(new PrintWriter(out, true));

        assertThat(out.toString().lines()).containsExactly(
                "SESSION           MODEL",
                "a\\u001B[2Jb       m\\u000D\\u000Aforged-row",
                "c\\u009B31m\\u202E  tab\\u0009here");
    }

    @Test
    void fieldsAndLines_showControlCharactersEscaped_butKeepTheirLinesAndTabs() {
        var out = new StringWriter();
        var err = new StringWriter();
        var output = new Output(new PrintWriter(out, true), new PrintWriter(err, true), false, false);

        output.print(Fields.of().add("objective", "do\u001b]0;pwned\u0007 it\r").addLines("plan", List.of("1. a\tb", "2. \u009bc")));
        output.line("said: \u001b[31mred\nnext line");
        output.note("warning: \u0008\u0008gone");

        assertThat(out.toString().lines()).containsExactly(
                "objective  do\\u001B]0;pwned\\u0007 it\\u000D",
                "plan       1. a\tb",
                "           2. \\u009Bc",
                "said: \\u001B[31mred",
                "next line");
        assertThat(err.toString()).isEqualTo("warning: \\u0008\\u0008gone\n");
    }

    @Test
    void json_escapesTheC1AndBidiControlsToo_andStaysTheSameJson() throws Exception {
        var out = new StringWriter();
        var node = Output.object().put("name", "a\u001b[31m\u009b2J\u202eb\u007f");

        new Output(new PrintWriter(out, true), new PrintWriter(new StringWriter()), true, false).print(node);

        assertThat(out.toString()).contains("\"a\\u001B[31m\\u009B2J\\u202Eb\\u007F\"").doesNotContain("\u001b", "\u009b", "\u202e", "\u007f");
        assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(out.toString())).isEqualTo(node);
        assertThat(Output.compact(node)).isEqualTo("{\"name\":\"a\\u001B[31m\\u009B2J\\u202Eb\\u007F\"}");
    }

    @Test
    void invisibleCharacters_areShownEscaped_inTextAndInJson_asTheApprovalPageMarksThem() throws Exception {
        String path = "src/\u200Bmain/a\u00ADb\u2060c\uFEFF.txt";
        assertThat(Output.printable(path)).isEqualTo("src/\\u200Bmain/a\\u00ADb\\u2060c\\uFEFF.txt");

        var out = new StringWriter();
        var node = Output.object().put("path", path);
        new Output(new PrintWriter(out, true), new PrintWriter(new StringWriter()), true, false).print(node);
        assertThat(out.toString()).contains("src/\\u200Bmain/a\\u00ADb\\u2060c\\uFEFF.txt").doesNotContain("\u200b", "\u00ad", "\ufeff");
        assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(out.toString())).isEqualTo(node);
        assertThat(Output.printable("plain é and 日本")).isEqualTo("plain é and 日本");
    }

    @Test
    void tagCharacters_thatSpellTextNoTerminalShows_areShownEscaped_inTextInATableAndInJson() throws Exception {
        // "rm -rf build" followed by U+E0049 U+E0047 U+E004E... ("IGN..." in tag characters): looks like rm -rf build alone
        String command = "rm -rf build" + new String(Character.toChars(0xE0049)) + new String(Character.toChars(0xE0047)) + "\uDB40\uDD00.";
        String shown = "rm -rf build\\uDB40\\uDC49\\uDB40\\uDC47\\uDB40\\uDD00.";
        assertThat(Output.printable(command)).isEqualTo(shown);
        var table = new StringWriter();
        Table.of("SHOWN").row(command).print(new PrintWriter(table, true));
        assertThat(table.toString()).contains(shown);

        var out = new StringWriter();
        var node = Output.object().put("shown", command);
        new Output(new PrintWriter(out, true), new PrintWriter(new StringWriter()), true, false).print(node);
        assertThat(out.toString()).contains(shown).doesNotContain(new String(Character.toChars(0xE0049)));
        assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(out.toString())).isEqualTo(node);
        assertThat(Output.compact(node)).isEqualTo("{\"shown\":\"" + shown + "\"}");
        assertThat(Output.printable("an emoji \uD83D\uDE00 stays")).isEqualTo("an emoji \uD83D\uDE00 stays");
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

    @Test
    void progressOnATerminal_cutShortByAFailure_endsItsLine_soTheFailuresLineStartsOnItsOwn() {
        var err = new StringWriter();
        var output = new Output(new PrintWriter(new StringWriter()), new PrintWriter(err, true), false, true);

        assertThatThrownBy(() -> {
            try (Progress progress = output.progress("replay", Duration.ofHours(1))) {
                progress.force("100 events");
                throw new IllegalStateException("the broker went away");
            }
        }).hasMessage("the broker went away");
        output.progress("drain v1", Duration.ofHours(1)).close(); // nothing shown: nothing to end

        assertThat(err.toString()).isEqualTo("\rreplay: 100 events\n");
    }
}
