package dev.tether.cli.output;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.io.UncheckedIOException;

/**
 * Where a command writes: its result on stdout (a table or detail block by default, JSON with
 * {@code --json}), notes and progress on stderr, so that stdout stays clean for pipes and
 * {@code jq}. Not thread-safe except {@link #jsonLine} and {@link #line}, which a subscription's
 * thread may call.
 */
public final class Output {

    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final ObjectMapper COMPACT = new ObjectMapper();

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
            return COMPACT.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A JSON document, indented. */
    public void print(JsonNode node) {
        try {
            out.println(MAPPER.writeValueAsString(node));
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

    /** A line of the result on stdout. */
    public synchronized void line(String text) {
        out.println(text);
        out.flush();
    }

    /** A remark about the result (an empty list, a warning) on stderr, where it does not mix with the result. */
    public void note(String text) {
        err.println(text);
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
}
