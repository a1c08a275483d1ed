package dev.tether.tools;

import com.github.difflib.DiffUtils;
import com.github.difflib.UnifiedDiffUtils;
import com.github.difflib.algorithm.DiffAlgorithmListener;
import com.github.difflib.algorithm.myers.MyersDiff;
import com.github.difflib.patch.ChangeDelta;
import com.github.difflib.patch.Chunk;
import com.github.difflib.patch.Patch;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The unified diff of two texts, line by line, with {@value #CONTEXT} lines of context, as {@code diff -u} prints
 * it: {@code ---}/{@code +++} headers, {@code @@ -l,s +l,s @@} hunks (a count of 1 is left out; an empty range
 * gives the line before it, so {@code -0,0} for a new file) and {@code \ No newline at end of file} after a last line
 * without one. The diff and the hunks are java-diff-utils' (Myers' algorithm); this class only feeds it lines that
 * keep their line ends, so that a missing final newline is a difference like any other, and writes its hunk headers
 * as GNU diff does.
 *
 * <p>Texts that differ in more than {@value #MAX_EDIT_DISTANCE} lines are not diffed line by line: Myers' time grows
 * with the number of lines times that distance. Their common first and last lines are kept, and the rest is shown as
 * removed whole and added whole: still a correct diff, not a minimal one.
 *
 * <p>Stateless.
 */
final class UnifiedDiff {

    static final int CONTEXT = 3;
    static final int MAX_EDIT_DISTANCE = 1000;

    private static final Pattern HUNK_HEADER = Pattern.compile("@@ -(\\d+),(\\d+) \\+(\\d+),(\\d+) @@");
    private static final String NO_NEWLINE = "\\ No newline at end of file";
    private static final DiffAlgorithmListener STOP_PAST_MAX_EDIT_DISTANCE = new DiffAlgorithmListener() {
        @Override
        public void diffStart() {}

        @Override
        public void diffStep(int editDistance, int max) {
            if (editDistance > MAX_EDIT_DISTANCE) {
                throw new TooDifferent();
            }
        }

        @Override
        public void diffEnd() {}
    };

    private UnifiedDiff() {}

    /**
     * @param oldLabel what the {@code ---} line names: {@code a/<path>}, or {@code /dev/null} for a new file
     * @param newLabel what the {@code +++} line names: {@code b/<path>}
     * @return the diff, or {@code ""} if the texts are equal
     */
    static String of(String oldLabel, String newLabel, String oldText, String newText) {
        List<String> oldLines = lines(oldText);
        List<String> newLines = lines(newText);
        Patch<String> patch = patch(oldLines, newLines);
        if (patch.getDeltas().isEmpty()) {
            return "";
        }
        List<String> unified = UnifiedDiffUtils.generateUnifiedDiff(oldLabel, newLabel, oldLines, patch, CONTEXT);
        var out = new StringBuilder();
        out.append(unified.get(0)).append('\n').append(unified.get(1)).append('\n'); // --- and +++
        for (String line : unified.subList(2, unified.size())) {
            Matcher header = HUNK_HEADER.matcher(line);
            if (header.matches()) { // a body line starts with ' ', '-' or '+', never '@'
                out.append("@@ -").append(range(header.group(1), header.group(2)))
                        .append(" +").append(range(header.group(3), header.group(4))).append(" @@\n");
            } else if (line.endsWith("\n")) {
                out.append(line);
            } else {
                out.append(line).append('\n').append(NO_NEWLINE).append('\n');
            }
        }
        return out.toString();
    }

    /** The text's lines, each with its {@code \n} (the last may have none). */
    static List<String> lines(String text) {
        var lines = new ArrayList<String>();
        int start = 0;
        while (start < text.length()) {
            int newline = text.indexOf('\n', start);
            int end = newline < 0 ? text.length() : newline + 1;
            lines.add(text.substring(start, end));
            start = end;
        }
        return lines;
    }

    private static Patch<String> patch(List<String> oldLines, List<String> newLines) {
        try {
            return DiffUtils.diff(oldLines, newLines, new MyersDiff<>(), STOP_PAST_MAX_EDIT_DISTANCE);
        } catch (TooDifferent e) {
            return middleReplaced(oldLines, newLines);
        }
    }

    /** One change: everything between the common first and last lines removed, and the new middle added. */
    private static Patch<String> middleReplaced(List<String> oldLines, List<String> newLines) {
        int prefix = 0;
        while (prefix < oldLines.size() && prefix < newLines.size()
                && oldLines.get(prefix).equals(newLines.get(prefix))) {
            prefix++;
        }
        int suffix = 0;
        while (suffix < oldLines.size() - prefix && suffix < newLines.size() - prefix
                && oldLines.get(oldLines.size() - 1 - suffix).equals(newLines.get(newLines.size() - 1 - suffix))) {
            suffix++;
        }
        var patch = new Patch<String>();
        patch.addDelta(new ChangeDelta<>(
                new Chunk<>(prefix, oldLines.subList(prefix, oldLines.size() - suffix)),
                new Chunk<>(prefix, newLines.subList(prefix, newLines.size() - suffix))));
        return patch;
    }

    /**
     * A hunk's range as GNU diff writes it. java-diff-utils always writes the count, and starts an empty range at
     * line 1; with context around every change, a range is empty only when its whole side is, which GNU diff writes
     * {@code 0,0}.
     */
    private static String range(String start, String count) {
        return switch (count) {
            case "1" -> start;
            case "0" -> "0,0";
            default -> start + "," + count;
        };
    }

    /** Myers' search went past {@link #MAX_EDIT_DISTANCE}. */
    private static final class TooDifferent extends RuntimeException {
        TooDifferent() {
            super(null, null, false, false); // thrown as control flow: no stack trace needed
        }
    }
}
