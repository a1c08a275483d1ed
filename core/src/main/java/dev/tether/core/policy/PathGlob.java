package dev.tether.core.policy;

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

    /**
     * Whether the workspace-relative {@code path} falls under this glob; never for a path without a plain form. The path
     * is the model's choice: matching takes time in proportion to the glob's segments times the path's (and, within a
     * segment, the glob's characters times the name's), never exponential in the stars, which backtracking to every
     * earlier star would be.
     */
    public boolean matches(String path) {
        return normalize(path).map(this::matchesSegments).orElse(false);
    }

    /**
     * The segments against the glob's: {@code **} matches any run of segments, every other glob segment one segment
     * ({@link #segmentMatches}). Only the last {@code **} is ever backtracked to: whatever an earlier one would take, the
     * later one can take as well.
     */
    private boolean matchesSegments(List<String> path) {
        int g = 0;
        int p = 0;
        int star = -1;
        int resume = 0;
        while (p < path.size()) {
            if (g < segments.size() && segments.get(g).equals("**")) {
                star = g++;
                resume = p;
            } else if (g < segments.size() && segmentMatches(segments.get(g), path.get(p))) {
                g++;
                p++;
            } else if (star >= 0) {
                g = star + 1;
                p = ++resume;
            } else {
                return false;
            }
        }
        while (g < segments.size() && segments.get(g).equals("**")) {
            g++;
        }
        return g == segments.size();
    }

    /** A file name against a glob segment: {@code *} any run of characters, {@code ?} one; in the same way as above. */
    private static boolean segmentMatches(String glob, String name) {
        int g = 0;
        int n = 0;
        int star = -1;
        int resume = 0;
        while (n < name.length()) {
            if (g < glob.length() && glob.charAt(g) == '*') {
                star = g++;
                resume = n;
            } else if (g < glob.length() && (glob.charAt(g) == '?' || glob.charAt(g) == name.charAt(n))) {
                g++;
                n++;
            } else if (star >= 0) {
                g = star + 1;
                n = ++resume;
            } else {
                return false;
            }
        }
        while (g < glob.length() && glob.charAt(g) == '*') {
            g++;
        }
        return g == glob.length();
    }

    /**
     * Whether a tool call on {@code path}, which leads to {@code realPath} in the session's workspace through symbolic
     * links, falls under this glob: the path as written and where it really leads must both (so a link under
     * {@code src/} to {@code test/} covers nothing). Never when either is null (no path, or one leading nowhere inside
     * the workspace). The approval-service asks this when it folds a call; the executor again right before it runs one
     * authorized by a grant with this glob, since links may have changed between the two.
     */
    public boolean covers(String path, String realPath) {
        return path != null && realPath != null && matches(path) && matches(realPath);
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
