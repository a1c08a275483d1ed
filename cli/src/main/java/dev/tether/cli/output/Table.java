package dev.tether.cli.output;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Rows under upper-case headers, each column as wide on a terminal as its widest cell ({@link #width}: CJK characters
 * take two columns, combining marks none), two spaces apart; empty
 * cells read {@code -}, and a cell's control characters (a newline, an ESC...) are shown escaped
 * ({@link Output#printable}), so no stored value can break a row or drive the terminal. Built once, printed once.
 */
public final class Table {

    private final List<String> headers;
    private final List<String[]> rows = new ArrayList<>();

    private Table(List<String> headers) {
        this.headers = headers;
    }

    public static Table of(String... headers) {
        return new Table(List.of(headers));
    }

    /** Adds a row; {@code null} or empty cells print as {@code -}. */
    public Table row(Object... cells) {
        if (cells.length != headers.size()) {
            throw new IllegalArgumentException("a row of " + headers.size() + " cells, not " + cells.length + ": " + Arrays.toString(cells));
        }
        String[] row = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            String text = cells[i] == null ? "" : Output.printableCell(cells[i].toString());
            row[i] = text.isEmpty() ? "-" : text;
        }
        rows.add(row);
        return this;
    }

    public boolean isEmpty() {
        return rows.isEmpty();
    }

    void print(PrintWriter out) {
        int[] widths = new int[headers.size()];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = width(headers.get(i));
            for (String[] row : rows) {
                widths[i] = Math.max(widths[i], width(row[i]));
            }
        }
        out.println(line(headers.toArray(String[]::new), widths));
        rows.forEach(r -> out.println(line(r, widths)));
    }

    private static String line(String[] cells, int[] widths) {
        var sb = new StringBuilder();
        for (int i = 0; i < cells.length; i++) {
            sb.append(cells[i]);
            if (i < cells.length - 1) {
                sb.append(" ".repeat(widths[i] - width(cells[i]) + 2));
            }
        }
        return sb.toString().stripTrailing();
    }

    /**
     * How many columns {@code text} takes on a terminal: two for each East Asian wide or fullwidth character (CJK,
     * Hangul, fullwidth forms, emoji), none for a combining mark, one for any other (as wcwidth reckons it). The text
     * of a cell has no control character left ({@link Output#printableCell}).
     */
    static int width(String text) {
        int columns = 0;
        for (int i = 0; i < text.length(); ) {
            int c = text.codePointAt(i);
            i += Character.charCount(c);
            int type = Character.getType(c);
            if (type == Character.NON_SPACING_MARK || type == Character.ENCLOSING_MARK || c == 0x200B
                    || c >= 0x1160 && c <= 0x11FF) { // a conjoining Hangul vowel or final joins the syllable's two columns
                continue;
            }
            columns += wide(c) ? 2 : 1;
        }
        return columns;
    }

    private static boolean wide(int c) {
        return c >= 0x1100 && c <= 0x115F || c >= 0x2E80 && c <= 0xA4CF && c != 0x303F || c >= 0xAC00 && c <= 0xD7A3
                || c >= 0xF900 && c <= 0xFAFF || c >= 0xFE30 && c <= 0xFE4F || c >= 0xFF00 && c <= 0xFF60 || c >= 0xFFE0 && c <= 0xFFE6
                || c >= 0x1F300 && c <= 0x1F64F || c >= 0x1F680 && c <= 0x1F6FF || c >= 0x1F900 && c <= 0x1F9FF
                || c >= 0x20000 && c <= 0x3FFFD || emoji(c);
    }

    /** The other emoji a terminal shows two columns wide (East Asian Width W: emoji presentation by default). */
    private static boolean emoji(int c) {
        return c >= 0x231A && c <= 0x231B || c >= 0x2329 && c <= 0x232A || c >= 0x23E9 && c <= 0x23EC || c == 0x23F0 || c == 0x23F3
                || c >= 0x25FD && c <= 0x25FE || c >= 0x2614 && c <= 0x2615 || c >= 0x2648 && c <= 0x2653 || c == 0x267F || c == 0x2693
                || c == 0x26A1 || c >= 0x26AA && c <= 0x26AB || c >= 0x26BD && c <= 0x26BE || c >= 0x26C4 && c <= 0x26C5 || c == 0x26CE
                || c == 0x26D4 || c == 0x26EA || c >= 0x26F2 && c <= 0x26F3 || c == 0x26F5 || c == 0x26FA || c == 0x26FD || c == 0x2705
                || c >= 0x270A && c <= 0x270B || c == 0x2728 || c == 0x274C || c == 0x274E || c >= 0x2753 && c <= 0x2755 || c == 0x2757
                || c >= 0x2795 && c <= 0x2797 || c == 0x27B0 || c == 0x27BF || c >= 0x2B1B && c <= 0x2B1C || c == 0x2B50 || c == 0x2B55
                || c == 0x1F004 || c == 0x1F0CF || c == 0x1F18E || c >= 0x1F191 && c <= 0x1F19A || c >= 0x1F200 && c <= 0x1F265
                || c >= 0x1F7E0 && c <= 0x1F7F0 || c >= 0x1FA70 && c <= 0x1FAFF;
    }
}
