package dev.tether.cli.output;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Rows under upper-case headers, each column as wide as its widest cell, two spaces apart; empty
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
            widths[i] = headers.get(i).length();
            for (String[] row : rows) {
                widths[i] = Math.max(widths[i], row[i].length());
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
                sb.append(" ".repeat(widths[i] - cells[i].length() + 2));
            }
        }
        return sb.toString().stripTrailing();
    }
}
