package dev.tether.core.event;

/**
 * Whether a text is one JSON value (RFC 8259): an object, array, string, number, {@code true}, {@code false} or
 * {@code null}, with only JSON whitespace around it: the check of {@link FrameworkState}'s content. A syntax check only,
 * JDK only: nothing is built from the text. Iterative, so any nesting depth takes a stack of one char per level, never
 * the thread's stack. Thread-safe.
 */
public final class JsonSyntax {

    private final String text;
    /** Whether a {@code \}{@code u} escape's digits must be ASCII hex, as RFC 8259 has them. */
    private final boolean asciiHex;
    private int at;

    private JsonSyntax(String text, boolean asciiHex) {
        this.text = text;
        this.asciiHex = asciiHex;
    }

    /**
     * Null when {@code text} is one JSON value; otherwise what is wrong and at which char offset. The answer never
     * quotes the text: it may hold secrets. Lenient in one place, as the check of stored events has been since it was
     * written: a {@code \}{@code u} escape may have other Unicode hex digits ({@code Character.digit}), so that an event
     * stored then still reads. New content is checked by {@link #strictProblem}.
     */
    public static String problem(String text) {
        return text.isEmpty() ? "it is empty" : new JsonSyntax(text, false).check();
    }

    /**
     * {@link #problem}, with a {@code \}{@code u} escape's four digits ASCII hex only: the check of content a client sends,
     * which JSON parsers (Jackson, {@code JSON.parse}) must read back, as must secret scrubbing.
     */
    public static String strictProblem(String text) {
        return text.isEmpty() ? "it is empty" : new JsonSyntax(text, true).check();
    }

    /** Whether {@code text} is one JSON value; false for null. */
    public static boolean isValue(String text) {
        return text != null && problem(text) == null;
    }

    private String check() {
        var open = new StringBuilder(); // '{' or '[' per level, innermost last
        skipWhitespace();
        while (true) {
            String bad = value(open);
            if (bad != null) {
                return bad;
            }
            // after a value: close what ends here, then a comma or the end of the text
            while (true) {
                skipWhitespace();
                if (open.isEmpty()) {
                    return at == text.length() ? null : "there is more after the value, at offset " + at;
                }
                char container = open.charAt(open.length() - 1);
                char close = container == '{' ? '}' : ']';
                if (at == text.length()) {
                    return "it ends inside an " + (container == '{' ? "object" : "array");
                }
                char c = text.charAt(at);
                if (c == close) {
                    at++;
                    open.setLength(open.length() - 1);
                } else if (c == ',') {
                    at++;
                    skipWhitespace();
                    if (container == '{' && (bad = member()) != null) {
                        return bad;
                    }
                    break;
                } else {
                    return "expected ',' or '" + close + "' at offset " + at;
                }
            }
        }
    }

    /** One value, or the opening of a container with its first member name; {@code open} gains the containers opened. */
    private String value(StringBuilder open) {
        while (true) {
            if (at == text.length()) {
                return "it ends where a value is expected";
            }
            char c = text.charAt(at);
            if (c == '{' || c == '[') {
                at++;
                skipWhitespace();
                char close = c == '{' ? '}' : ']';
                if (at < text.length() && text.charAt(at) == close) {
                    at++;
                    return null; // empty: a whole value
                }
                open.append(c);
                if (c == '{') {
                    String bad = member();
                    if (bad != null) {
                        return bad;
                    }
                }
                continue; // the first value inside
            }
            if (c == '"') {
                return string();
            }
            if (c == '-' || (c >= '0' && c <= '9')) {
                return number();
            }
            for (String literal : new String[] {"true", "false", "null"}) {
                if (text.startsWith(literal, at)) {
                    at += literal.length();
                    return null;
                }
            }
            return "unexpected character at offset " + at;
        }
    }

    /** A member's name and its colon, whitespace skipped after both. */
    private String member() {
        if (at == text.length() || text.charAt(at) != '"') {
            return "expected a member name (a string) at offset " + at;
        }
        String bad = string();
        if (bad != null) {
            return bad;
        }
        skipWhitespace();
        if (at == text.length() || text.charAt(at) != ':') {
            return "expected ':' at offset " + at;
        }
        at++;
        skipWhitespace();
        return null;
    }

    private String string() {
        int start = at++;
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c == '"') {
                at++;
                return null;
            }
            if (c < 0x20) {
                return "a control character in the string at offset " + at + " must be escaped";
            }
            if (c == '\\') {
                if (at + 1 == text.length()) {
                    break;
                }
                char e = text.charAt(at + 1);
                if (e == 'u') {
                    for (int i = at + 2; i < at + 6; i++) {
                        if (i >= text.length() || !hexDigit(text.charAt(i))) {
                            return "a \\u escape needs four hex digits, at offset " + at;
                        }
                    }
                    at += 6;
                    continue;
                }
                if ("\"\\/bfnrt".indexOf(e) < 0) {
                    return "an unknown escape at offset " + at;
                }
                at += 2;
                continue;
            }
            at++;
        }
        return "the string at offset " + start + " never ends";
    }

    private String number() {
        int start = at;
        if (text.charAt(at) == '-') {
            at++;
        }
        if (at < text.length() && text.charAt(at) == '0') {
            at++;
        } else if (digits() == 0) {
            return "a number needs a digit, at offset " + start;
        }
        if (at < text.length() && text.charAt(at) == '.') {
            at++;
            if (digits() == 0) {
                return "a number needs a digit after its '.', at offset " + start;
            }
        }
        if (at < text.length() && (text.charAt(at) == 'e' || text.charAt(at) == 'E')) {
            at++;
            if (at < text.length() && (text.charAt(at) == '+' || text.charAt(at) == '-')) {
                at++;
            }
            if (digits() == 0) {
                return "a number needs a digit in its exponent, at offset " + start;
            }
        }
        return null;
    }

    private boolean hexDigit(char c) {
        return asciiHex ? c < 0x80 && Character.digit(c, 16) >= 0 : Character.digit(c, 16) >= 0;
    }

    private int digits() {
        int from = at;
        while (at < text.length() && text.charAt(at) >= '0' && text.charAt(at) <= '9') {
            at++;
        }
        return at - from;
    }

    private void skipWhitespace() {
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            at++;
        }
    }
}
