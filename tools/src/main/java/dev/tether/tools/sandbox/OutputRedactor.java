package dev.tether.tools.sandbox;

import dev.tether.core.secrets.Scrubbed;
import dev.tether.core.secrets.SecretScrubber;
import dev.tether.core.secrets.SecretScrubber.Span;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Redacts what a tool captured before it goes anywhere: into a {@code tool_result}, the ledger or a log line.
 *
 * <ul>
 *   <li>Each registered secret value (a {@code secret://name} the executor resolved for this call), wherever it
 *       occurs, becomes {@code [REDACTED:secret:<name>]}; values of any length.
 *   <li>Each registered environment value given to a command becomes {@code [REDACTED:env:<NAME>]}; values shorter
 *       than {@value #MIN_ENVIRONMENT_VALUE_LENGTH} characters are left alone, so that {@code DEBUG=1} does not redact
 *       every {@code 1}.
 *   <li>Every secret shape {@link SecretScrubber#standard()} knows (tokens, keys, {@code .env}-style
 *       {@code PASSWORD=…} assignments, private keys …) becomes {@code [REDACTED:<kind>]}.
 * </ul>
 * Both are found on the text as it is, so that each secret has its context (a URL's password after a registered user
 * name is still a URL's password), and where they overlap the text is redacted once, by the longest run: a secret
 * inside a longer one is never half-redacted. Redacting again changes nothing: markers already in the text are left
 * alone.
 *
 * <p>One redactor serves one tool call: values resolved during the call are registered and stay registered, so that
 * anything later written about the call can be redacted by the same instance. Thread-safe: values may be registered
 * while another thread redacts.
 */
public final class OutputRedactor {

    /** Environment values shorter than this are not redacted. */
    public static final int MIN_ENVIRONMENT_VALUE_LENGTH = 6;

    /** A marker this class writes; the scrubber would otherwise take {@code secret:<name>} for an assignment. */
    private static final Pattern OWN_MARKER = Pattern.compile("\\[REDACTED:(?:env|secret):[A-Za-z0-9_.-]+]");

    private final SecretScrubber scrubber = SecretScrubber.standard();
    /** Value to kind ({@code secret:<name>} or {@code env:<NAME>}); the first registration of a value wins. */
    private final Map<String, String> kinds = new ConcurrentHashMap<>();

    /**
     * Registers a resolved secret, so that its value is redacted as {@code [REDACTED:secret:<name>]}.
     *
     * @param name  the name it was referred to by, never null
     * @param value its value, never null; an empty value is ignored
     */
    public void registerSecret(String name, String value) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
        if (!value.isEmpty()) {
            kinds.putIfAbsent(value, "secret:" + name);
        }
    }

    /**
     * Registers the values of environment variables given to a command, so that they are redacted as
     * {@code [REDACTED:env:<NAME>]}; values shorter than {@value #MIN_ENVIRONMENT_VALUE_LENGTH} are skipped.
     *
     * @param environment names to values, never null
     */
    public void registerEnvironment(Map<String, String> environment) {
        environment.forEach((name, value) -> {
            if (value.length() >= MIN_ENVIRONMENT_VALUE_LENGTH) {
                kinds.putIfAbsent(value, "env:" + name);
            }
        });
    }

    /**
     * Redacts a text.
     *
     * @param text never null
     * @return the redacted text, with the number of redactions by kind ({@code secret:<name>}, {@code env:<NAME>} or a
     *     scrubber kind)
     */
    public Scrubbed redact(String text) {
        return redact(text, false);
    }

    /**
     * Redacts a text that was cut off at its end, as capped output is: besides what {@link #redact} does, a registered
     * value's beginning at the very end (the rest of the value having been cut off) is redacted too.
     *
     * @param text never null
     */
    public Scrubbed redactCut(String text) {
        return redact(text, true);
    }

    /**
     * Registered values and the scrubber's findings, both found on the text as it is, where each secret has its context
     * (a URL's password after a registered user name, an assignment whose value begins with a registered value), then
     * merged: each run of overlapping ones is one marker, named by a registered value if one is in the run.
     */
    private Scrubbed redact(String text, boolean cut) {
        Objects.requireNonNull(text, "text");
        var spans = registeredValuesIn(text, cut);
        List<Span> markers = ownMarkersIn(text);
        for (Span span : scrubber.spans(text)) {
            if (markers.stream().noneMatch(m -> span.start() < m.end() && m.start() < span.end())) {
                spans.add(span); // one in a marker of ours was redacted already
            }
        }
        // at each place a registered value before the scrubber's shape, and the longest first: the run is named by it
        spans.sort(Comparator.comparingInt(Span::start).thenComparing(span -> !registered(span.kind()))
                .thenComparing(Comparator.comparingInt(Span::end).reversed()));
        var merged = new ArrayList<Span>();
        for (int i = 0; i < spans.size(); ) {
            Span first = spans.get(i);
            int end = first.end();
            String kind = first.kind();
            for (i++; i < spans.size() && spans.get(i).start() < end; i++) {
                end = Math.max(end, spans.get(i).end());
                if (!registered(kind) && registered(spans.get(i).kind())) {
                    kind = spans.get(i).kind();
                }
            }
            merged.add(new Span(first.start(), end, kind));
        }
        return SecretScrubber.redact(text, merged);
    }

    /** Every place a registered value occurs (and, in a cut text, a value's beginning at its very end). */
    private List<Span> registeredValuesIn(String text, boolean cut) {
        var found = new ArrayList<Span>();
        kinds.forEach((value, kind) -> {
            for (int at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + 1)) {
                found.add(new Span(at, at + value.length(), kind));
            }
            if (cut) {
                int prefix = longestPrefixEndingText(text, value);
                if (prefix > 0) {
                    found.add(new Span(text.length() - prefix, text.length(), kind));
                }
            }
        });
        return found;
    }

    /** The length of the longest proper prefix of {@code value} that {@code text} ends with; 0 if none. */
    private static int longestPrefixEndingText(String text, String value) {
        for (int length = Math.min(value.length() - 1, text.length()); length > 0; length--) {
            if (text.regionMatches(text.length() - length, value, 0, length)) {
                return length;
            }
        }
        return 0;
    }

    /** Where this class's markers are in {@code text} (a text redacted before): the scrubber's findings in them are not new. */
    private static List<Span> ownMarkersIn(String text) {
        var markers = new ArrayList<Span>();
        for (Matcher marker = OWN_MARKER.matcher(text); marker.find(); ) {
            markers.add(new Span(marker.start(), marker.end(), ""));
        }
        return markers;
    }

    /** Whether {@code kind} is a registered value's ({@code secret:<name>}, {@code env:<NAME>}) rather than a scrubber's. */
    private static boolean registered(String kind) {
        return kind.startsWith("secret:") || kind.startsWith("env:");
    }

    /** Shows the kinds registered, never a value. */
    @Override
    public String toString() {
        return "OutputRedactor" + kinds.values().stream().sorted().toList();
    }
}
