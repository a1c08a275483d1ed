package dev.tether.approval.domain;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A glob over workspace-relative paths, as a session-scope grant names them ({@code src/**}, {@code docs/*.md}).
 * Segments are separated by {@code /}; {@code **} as a whole segment matches any number of segments (none
 * included), {@code *} any run of characters within one segment, {@code ?} one character within one segment.
 * Nothing else is special.
 *
 * <p>Parsing is strict, so a glob that could be read two ways is refused rather than guessed: absolute globs,
 * {@code .} or {@code ..} segments, empty segments, backslashes, NUL, brackets and braces (which other glob dialects
 * give a meaning) and {@code **} inside a segment ({@code a**}) are errors naming the problem.
 *
 * <p>Paths are matched only in their plain form: a path that is absolute, has a {@code .} or {@code ..} segment, an
 * empty segment or a backslash is matched by no glob ({@link #normalize} is empty for it), so {@code src/../etc/passwd}
 * never falls under {@code src/**}. Immutable, thread-safe.
 */
public final class PathGlob {

    /** The longest glob accepted, in chars. */
    public static final int MAX_LENGTH = 512;

    private final String text;
    private final List<String> segments;

    private PathGlob(String text, List<String> segments) {
        this.text = text;
        this.segments = segments;
    }

    /**
     * @throws InvalidGlobException naming what is wrong
     */
    public static PathGlob parse(String glob) {
        Objects.requireNonNull(glob, "glob");
        if (glob.isEmpty()) {
            throw new InvalidGlobException("must not be empty");
        }
        if (glob.length() > MAX_LENGTH) {
            throw new InvalidGlobException("must be at most " + MAX_LENGTH + " characters");
        }
        if (glob.startsWith("/")) {
            throw new InvalidGlobException("must be relative to the workspace, not start with '/'");
        }
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (c == '\\' || c == '[' || c == ']' || c == '{' || c == '}' || c == '\0' || Character.isISOControl(c)) {
                throw new InvalidGlobException("must not contain '" + (Character.isISOControl(c) ? "\\u" + String.format("%04x", (int) c)
                        : String.valueOf(c)) + "' (only '*', '**' and '?' are special)");
            }
        }
        var segments = new ArrayList<String>();
        for (String segment : glob.split("/", -1)) {
            if (segment.isEmpty()) {
                throw new InvalidGlobException("must not have an empty segment ('//' or a trailing '/')");
            }
            if (segment.equals(".") || segment.equals("..")) {
                throw new InvalidGlobException("must not have a '" + segment + "' segment");
            }
            if (segment.contains("**") && !segment.equals("**")) {
                throw new InvalidGlobException("'**' must be a whole segment, as in 'src/**/*.java'");
            }
            segments.add(segment);
        }
        return new PathGlob(glob, List.copyOf(segments));
    }

    /**
     * The plain form of a workspace-relative path, or empty if it has none: absolute, a {@code .} or {@code ..}
     * segment, an empty segment, a backslash or a control character.
     */
    public static Optional<List<String>> normalize(String path) {
        if (path == null || path.isEmpty() || path.startsWith("/")) {
            return Optional.empty();
        }
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c == '\\' || Character.isISOControl(c)) {
                return Optional.empty();
            }
        }
        var segments = new ArrayList<String>();
        for (String segment : path.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                return Optional.empty();
            }
            segments.add(segment);
        }
        return Optional.of(segments);
    }

    /** Whether the workspace-relative {@code path} falls under this glob; never for a path without a plain form. */
    public boolean matches(String path) {
        return normalize(path).map(p -> matches(0, p, 0)).orElse(false);
    }

    private boolean matches(int g, List<String> path, int p) {
        if (g == segments.size()) {
            return p == path.size();
        }
        String segment = segments.get(g);
        if (segment.equals("**")) {
            for (int skip = p; skip <= path.size(); skip++) {
                if (matches(g + 1, path, skip)) {
                    return true;
                }
            }
            return false;
        }
        return p < path.size() && segmentMatches(segment, 0, path.get(p), 0) && matches(g + 1, path, p + 1);
    }

    private static boolean segmentMatches(String glob, int g, String name, int n) {
        while (g < glob.length()) {
            char c = glob.charAt(g);
            if (c == '*') {
                for (int rest = n; rest <= name.length(); rest++) {
                    if (segmentMatches(glob, g + 1, name, rest)) {
                        return true;
                    }
                }
                return false;
            }
            if (n == name.length() || (c != '?' && c != name.charAt(n))) {
                return false;
            }
            g++;
            n++;
        }
        return n == name.length();
    }

    /** The glob as written. */
    @Override
    public String toString() {
        return text;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PathGlob other && other.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    /** A glob that cannot be parsed; the message says why. */
    public static final class InvalidGlobException extends IllegalArgumentException {
        InvalidGlobException(String problem) {
            super(problem);
        }
    }
}
