package dev.tether.cli.output;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.io.UncheckedIOException;

/**
 * Where a command writes: its result on stdout (a table or detail block by default, JSON with
 * {@code --json}), notes and progress on stderr, so that stdout stays clean for pipes and
 * {@code jq}. Not thread-safe except {@link #jsonLine} and {@link #line}, which a subscription's
 * thread may call.
 *
 * <p>Much of what is printed is stored data (a session id, an objective, a tool's output), so nothing reaches the
 * terminal as a control sequence or hides in it: text goes through {@link #printable}, and JSON escapes the C1 controls, the
 * bidi controls and the invisible characters as well as the C0 ones, so it stays the same JSON for {@code jq} but inert
 * and visible on a terminal.
 */
public final class Output {

    private static final ObjectMapper COMPACT = new ObjectMapper();
    private static final ObjectWriter INDENTED = COMPACT.writer(InertEscapes.INSTANCE).with(SerializationFeature.INDENT_OUTPUT);
    private static final ObjectWriter ONE_LINE = COMPACT.writer(InertEscapes.INSTANCE);

    private final PrintWriter out;
    private final PrintWriter err;
    private final boolean json;
    private final boolean interactive;

    /**
     * @param json        print JSON instead of tables
     * @param interactive stderr is a terminal: progress rewrites one line instead of printing a line now and then
     */
    public Output(PrintWriter out, PrintWriter err, boolean json, boolean interactive) {
        this.out = out;
        this.err = err;
        this.json = json;
        this.interactive = interactive;
    }

    /** True with {@code --json}. */
    public boolean json() {
        return json;
    }

    /** A new JSON object, to fill and {@link #print(JsonNode)}. */
    public static ObjectNode object() {
        return COMPACT.createObjectNode();
    }

    /** Parses JSON text (a service's answer the SDK kept as text). */
    public static JsonNode parse(String text) {
        try {
            return COMPACT.readTree(text);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("unreadable JSON from a service", e);
        }
    }

    /** JSON on one line. */
    public static String compact(JsonNode node) {
        try {
            return inertPairs(ONE_LINE.writeValueAsString(node));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A JSON document, indented. */
    public void print(JsonNode node) {
        try {
            out.println(inertPairs(INDENTED.writeValueAsString(node)));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
        out.flush();
    }

    /** One JSON document per line (a stream of events). */
    public synchronized void jsonLine(JsonNode node) {
        out.println(compact(node));
        out.flush();
    }

    public void print(Table table) {
        table.print(out);
        out.flush();
    }

    public void print(Fields fields) {
        fields.print(out);
        out.flush();
    }

    /** A line of the result on stdout (its control characters shown, not obeyed: {@link #printable}). */
    public synchronized void line(String text) {
        out.println(printable(text));
        out.flush();
    }

    /**
     * True once stdout can take nothing more: the reader of the pipe went away ({@code | head}, {@code | grep -m1}). The JVM
     * ignores SIGPIPE and a {@code PrintWriter} swallows the error, so a command that goes on (following a log) asks this.
     */
    public boolean closed() {
        return out.checkError();
    }

    /** A remark about the result (an empty list, a warning) on stderr, where it does not mix with the result. */
    public void note(String text) {
        err.println(printable(text));
        err.flush();
    }

    /**
     * Progress of a long operation, on stderr.
     *
     * @param logInterval when stderr is not a terminal, how often at most a line is printed
     */
    public Progress progress(String label, java.time.Duration logInterval) {
        return new Progress(err, label, interactive, logInterval);
    }

    /**
     * {@code text} as a terminal shows it and never obeys it: every control character but newline and tab (C0, DEL,
     * C1: ESC, CSI, a carriage return that would overwrite the line...), every bidi control and every invisible character
     * ({@link #isHidden}) becomes a visible escape such as <code>&#92;u001B</code>. For text that may hold stored data; null reads as empty.
     */
    public static String printable(String text) {
        return escape(text, true);
    }

    /** {@link #printable}, newlines and tabs escaped too: for one cell of a table. */
    static String printableCell(String text) {
        return escape(text, false);
    }

    private static String escape(String text, boolean keepLines) {
        if (text == null) {
            return "";
        }
        StringBuilder sb = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean pair = isHiddenPair(text, i);
            boolean inert = !(pair || Character.getType(c) == Character.CONTROL || isHidden(c)) || keepLines && (c == '\n' || c == '\t');
            if (!inert && sb == null) {
                sb = new StringBuilder(text.length() + 16).append(text, 0, i);
            }
            if (!inert) {
                sb.append(String.format("\\u%04X", (int) c));
                if (pair) {
                    sb.append(String.format("\\u%04X", (int) text.charAt(++i)));
                }
            } else if (sb != null) {
                sb.append(c);
            }
        }
        return sb == null ? text : sb.toString();
    }

    /**
     * Whether {@code text} has a character of plane 14 (U+E0000 to U+E0FFF) at {@code i}, as a surrogate pair: the tag
     * characters, which spell out text that no terminal shows (ASCII smuggling: {@code rm -rf build} can carry a hidden
     * instruction to a model, a path a hidden suffix), and the supplementary variation selectors, as invisible.
     */
    private static boolean isHiddenPair(String text, int i) {
        char c = text.charAt(i);
        return c >= '\uDB40' && c <= '\uDB43' && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1));
    }

    /**
     * JSON text with {@link #isHiddenPair}'s characters escaped (Jackson's escapes see one UTF-16 unit at a time, so cannot):
     * they are only ever inside a JSON string, where the escapes are the same string.
     */
    private static String inertPairs(String json) {
        StringBuilder sb = null;
        for (int i = 0; i < json.length(); i++) {
            if (isHiddenPair(json, i)) {
                if (sb == null) {
                    sb = new StringBuilder(json.length() + 32).append(json, 0, i);
                }
                sb.append(String.format("\\u%04X\\u%04X", (int) json.charAt(i), (int) json.charAt(++i)));
            } else if (sb != null) {
                sb.append(json.charAt(i));
            }
        }
        return sb == null ? json : sb.toString();
    }

    /**
     * The characters a terminal shows as nothing, or that reorder what it shows (Trojan Source): the bidi marks,
     * embeddings, overrides and isolates; the zero-width spaces and joiners, the soft hyphen, the word joiner and the
     * invisible operators, the byte order mark. A path {@code src/\u200Bmain} looks like {@code src/main} on a terminal. The
     * approval page marks the same characters.
     */
    private static boolean isHidden(char c) {
        return c == '\u00AD' || c == '\u061C' || c == '\u180E' || c >= '\u200B' && c <= '\u200F' || c >= '\u202A' && c <= '\u202E'
                || c >= '\u2060' && c <= '\u2064' || c >= '\u2066' && c <= '\u2069' || c == '\uFEFF';
    }

    /** JSON's own escapes, plus DEL, the C1 controls and {@link #isHidden}'s as <code>&#92;uXXXX</code>: the same JSON, inert on a terminal. */
    private static final class InertEscapes extends CharacterEscapes {
        private static final long serialVersionUID = 1L;
        static final InertEscapes INSTANCE = new InertEscapes();
        private final int[] ascii;

        private InertEscapes() {
            ascii = CharacterEscapes.standardAsciiEscapesForJSON();
            ascii[0x7F] = CharacterEscapes.ESCAPE_STANDARD;
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return ascii;
        }

        @Override
        public SerializableString getEscapeSequence(int ch) {
            return Character.getType(ch) == Character.CONTROL || ch <= 0xFFFF && isHidden((char) ch)
                    ? new SerializedString(String.format("\\u%04X", ch)) : null;
        }
    }
}
