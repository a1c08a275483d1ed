package dev.tether.cli.output;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A detail block: a label, then its value; a value of several lines continues under the first,
 * aligned. Labels without a value are left out, so optional facts need no {@code if}. Control
 * characters other than the newlines are shown escaped ({@link Output#printable}).
 */
public final class Fields {

    private record Field(String label, String value) {}

    private final List<Field> fields = new ArrayList<>();

    public static Fields of() {
        return new Fields();
    }

    /** Adds a field; a {@code null} value leaves it out. */
    public Fields add(String label, Object value) {
        if (value != null) {
            fields.add(new Field(label, value.toString()));
        }
        return this;
    }

    /** Adds a field of several lines, or {@code none} when there are none. */
    public Fields addLines(String label, List<String> lines) {
        return add(label, lines.isEmpty() ? "none" : String.join("\n", lines));
    }

    void print(PrintWriter out) {
        int width = fields.stream().mapToInt(f -> f.label().length()).max().orElse(0) + 2;
        for (Field f : fields) {
            String[] lines = Output.printable(f.value()).split("\n", -1);
            out.println((f.label() + " ".repeat(width - f.label().length()) + lines[0]).stripTrailing());
            for (int i = 1; i < lines.length; i++) {
                out.println((" ".repeat(width) + lines[i]).stripTrailing());
            }
        }
    }
}
