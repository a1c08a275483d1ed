package dev.tether.tools;

import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * A glob as {@code FileSystem.getPathMatcher("glob:…")} reads it on Unix ({@code *}, {@code **}, {@code ?},
 * {@code [a-z]}, {@code [!a]}, {@code {a,b}}, {@code \} escapes), turned into the same regular expression, so that
 * {@link GrepTool} can match it on a {@link DeadlineCharSequence}: the JDK's matcher runs its regex on the path's
 * string, where a glob of many stars ({@code *a*a*a*a*b}) backtracks for minutes on one long name, past every
 * deadline. Stateless.
 */
final class Glob {

    private static final String REGEX_META = ".^$+{[]|()";
    private static final String GLOB_META = "\\*?[{";

    private Glob() {}

    /**
     * The glob's regex, to be matched whole against a path's string.
     *
     * @throws PatternSyntaxException if it is not a valid glob
     */
    static Pattern compile(String glob) {
        var regex = new StringBuilder("^");
        boolean inGroup = false;
        int i = 0;
        while (i < glob.length()) {
            char c = glob.charAt(i++);
            switch (c) {
                case '\\' -> {
                    if (i == glob.length()) {
                        throw new PatternSyntaxException("No character to escape", glob, i - 1);
                    }
                    char next = glob.charAt(i++);
                    if (GLOB_META.indexOf(next) >= 0 || REGEX_META.indexOf(next) >= 0) {
                        regex.append('\\');
                    }
                    regex.append(next);
                }
                case '[' -> i = bracket(glob, i, regex);
                case '{' -> {
                    if (inGroup) {
                        throw new PatternSyntaxException("Cannot nest groups", glob, i - 1);
                    }
                    regex.append("(?:(?:");
                    inGroup = true;
                }
                case '}' -> {
                    regex.append(inGroup ? "))" : "\\}");
                    inGroup = false;
                }
                case ',' -> regex.append(inGroup ? ")|(?:" : ",");
                case '*' -> {
                    if (i < glob.length() && glob.charAt(i) == '*') {
                        regex.append(".*");
                        i++;
                    } else {
                        regex.append("[^/]*");
                    }
                }
                case '?' -> regex.append("[^/]");
                default -> {
                    if (REGEX_META.indexOf(c) >= 0) {
                        regex.append('\\');
                    }
                    regex.append(c);
                }
            }
        }
        if (inGroup) {
            throw new PatternSyntaxException("Missing '}'", glob, i - 1);
        }
        return Pattern.compile(regex.append('$').toString());
    }

    /** Appends the class that starts after the {@code [} before {@code i}; returns where the glob goes on. */
    private static int bracket(String glob, int i, StringBuilder regex) {
        regex.append("[[^/]&&[");
        if (i < glob.length() && glob.charAt(i) == '^') {
            regex.append("\\^");
            i++;
        } else {
            if (i < glob.length() && glob.charAt(i) == '!') {
                regex.append('^');
                i++;
            }
            if (i < glob.length() && glob.charAt(i) == '-') {
                regex.append('-');
                i++;
            }
        }
        boolean hasRangeStart = false;
        char last = 0;
        char c = 0;
        while (i < glob.length()) {
            c = glob.charAt(i++);
            if (c == ']') {
                break;
            }
            if (c == '/') {
                throw new PatternSyntaxException("Explicit 'name separator' in class", glob, i - 1);
            }
            if (c == '\\' || c == '[' || c == '&' && i < glob.length() && glob.charAt(i) == '&') {
                regex.append('\\');
            }
            regex.append(c);
            if (c == '-') {
                if (!hasRangeStart) {
                    throw new PatternSyntaxException("Invalid range", glob, i - 1);
                }
                if (i == glob.length() || (c = glob.charAt(i++)) == ']') {
                    break;
                }
                if (c < last) {
                    throw new PatternSyntaxException("Invalid range", glob, i - 3);
                }
                regex.append(c);
                hasRangeStart = false;
            } else {
                hasRangeStart = true;
                last = c;
            }
        }
        if (c != ']') {
            throw new PatternSyntaxException("Missing ']'", glob, i - 1);
        }
        regex.append("]]");
        return i;
    }
}
