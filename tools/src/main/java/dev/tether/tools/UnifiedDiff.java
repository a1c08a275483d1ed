package dev.tether.tools;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The unified diff of two texts, line by line, with {@value #CONTEXT} lines of context, as {@code diff -u} prints
 * it: {@code ---}/{@code +++} headers, {@code @@ -l,s +l,s @@} hunks (a count of 1 is left out; an empty range
 * gives the line before it), and {@code \ No newline at end of file} after a last line without one. Within a change,
 * removed lines come before added ones.
 *
 * <p>The common beginning and end are set aside, and the middle is diffed with Myers' algorithm. A middle that
 * differs in more than {@value #MAX_EDIT_DISTANCE} lines is shown as removed whole and added whole: still a correct
 * diff, not a minimal one, and it keeps time and memory bounded (Myers' trace grows with the square of the distance).
 *
 * <p>Stateless.
 */
final class UnifiedDiff {

    static final int CONTEXT = 3;
    static final int MAX_EDIT_DISTANCE = 1000;

    private static final char SAME = ' ';
    private static final char REMOVED = '-';
    private static final char ADDED = '+';

    private UnifiedDiff() {}

    /**
     * @param oldLabel what the {@code ---} line names: {@code a/<path>}, or {@code /dev/null} for a new file
     * @param newLabel what the {@code +++} line names: {@code b/<path>}
     * @return the diff, or {@code ""} if the texts are equal
     */
    static String of(String oldLabel, String newLabel, String oldText, String newText) {
        List<Edit> edits = edits(lines(oldText), lines(newText));
        if (edits.stream().allMatch(edit -> edit.op() == SAME)) {
            return "";
        }
        var out = new StringBuilder("--- ").append(oldLabel).append("\n+++ ").append(newLabel).append('\n');
        appendHunks(out, edits);
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

    private static List<Edit> edits(List<String> a, List<String> b) {
        int prefix = 0;
        while (prefix < a.size() && prefix < b.size() && a.get(prefix).equals(b.get(prefix))) {
            prefix++;
        }
        int suffix = 0;
        while (suffix < a.size() - prefix && suffix < b.size() - prefix
                && a.get(a.size() - 1 - suffix).equals(b.get(b.size() - 1 - suffix))) {
            suffix++;
        }
        var edits = new ArrayList<Edit>(a.size() + b.size());
        a.subList(0, prefix).forEach(line -> edits.add(new Edit(SAME, line)));
        edits.addAll(removalsFirst(middle(a.subList(prefix, a.size() - suffix), b.subList(prefix, b.size() - suffix))));
        a.subList(a.size() - suffix, a.size()).forEach(line -> edits.add(new Edit(SAME, line)));
        return edits;
    }

    /** Myers' shortest edit script, or all removed then all added when it is longer than the maximum. */
    private static List<Edit> middle(List<String> a, List<String> b) {
        int n = a.size();
        int m = b.size();
        int max = Math.min(n + m, MAX_EDIT_DISTANCE);
        if (n == 0 || m == 0) {
            return replaced(a, b);
        }
        int offset = max + 1;
        int[] v = new int[2 * max + 3];
        var trace = new ArrayList<int[]>(); // trace.get(d): v before round d, for k from -d-1 to d+1
        for (int d = 0; d <= max; d++) {
            trace.add(Arrays.copyOfRange(v, offset - d - 1, offset + d + 2));
            for (int k = -d; k <= d; k += 2) {
                int x = k == -d || k != d && v[offset + k - 1] < v[offset + k + 1]
                        ? v[offset + k + 1]
                        : v[offset + k - 1] + 1;
                int y = x - k;
                while (x < n && y < m && a.get(x).equals(b.get(y))) {
                    x++;
                    y++;
                }
                v[offset + k] = x;
                if (x >= n && y >= m) {
                    return backtrack(trace, a, b);
                }
            }
        }
        return replaced(a, b);
    }

    private static List<Edit> backtrack(List<int[]> trace, List<String> a, List<String> b) {
        var reversed = new ArrayList<Edit>();
        int x = a.size();
        int y = b.size();
        for (int d = trace.size() - 1; d >= 0; d--) {
            int[] v = trace.get(d);
            int base = d + 1; // v[base + k] holds V[k]
            int k = x - y;
            int previousK = k == -d || k != d && v[base + k - 1] < v[base + k + 1] ? k + 1 : k - 1;
            int previousX = v[base + previousK];
            int previousY = previousX - previousK;
            while (x > previousX && y > previousY) {
                reversed.add(new Edit(SAME, a.get(--x)));
                y--;
            }
            if (d > 0) {
                reversed.add(x == previousX ? new Edit(ADDED, b.get(--y)) : new Edit(REMOVED, a.get(--x)));
            }
        }
        var edits = new ArrayList<Edit>(reversed.size());
        for (int i = reversed.size() - 1; i >= 0; i--) {
            edits.add(reversed.get(i));
        }
        return edits;
    }

    private static List<Edit> replaced(List<String> a, List<String> b) {
        var edits = new ArrayList<Edit>(a.size() + b.size());
        a.forEach(line -> edits.add(new Edit(REMOVED, line)));
        b.forEach(line -> edits.add(new Edit(ADDED, line)));
        return edits;
    }

    /** The edits with each run of changes reordered: its removals, then its additions. */
    private static List<Edit> removalsFirst(List<Edit> edits) {
        var ordered = new ArrayList<Edit>(edits.size());
        var added = new ArrayList<Edit>();
        for (Edit edit : edits) {
            if (edit.op() == ADDED) {
                added.add(edit);
                continue;
            }
            if (edit.op() == SAME) {
                ordered.addAll(added);
                added.clear();
            }
            ordered.add(edit);
        }
        ordered.addAll(added);
        return ordered;
    }

    private static void appendHunks(StringBuilder out, List<Edit> edits) {
        int size = edits.size();
        int[] oldBefore = new int[size + 1]; // how many old lines come before position i
        int[] newBefore = new int[size + 1];
        for (int i = 0; i < size; i++) {
            char op = edits.get(i).op();
            oldBefore[i + 1] = oldBefore[i] + (op == ADDED ? 0 : 1);
            newBefore[i + 1] = newBefore[i] + (op == REMOVED ? 0 : 1);
        }
        int i = 0;
        while (i < size) {
            if (edits.get(i).op() == SAME) {
                i++;
                continue;
            }
            int start = Math.max(0, i - CONTEXT);
            int end = Math.min(size, endOfChanges(edits, i) + CONTEXT);
            out.append("@@ -").append(range(oldBefore[start], oldBefore[end] - oldBefore[start]))
                    .append(" +").append(range(newBefore[start], newBefore[end] - newBefore[start]))
                    .append(" @@\n");
            edits.subList(start, end).forEach(edit -> appendLine(out, edit));
            i = end;
        }
    }

    /**
     * The end of the last change of the hunk whose first change is at {@code from}: changes separated by at most
     * twice the context share a hunk.
     */
    private static int endOfChanges(List<Edit> edits, int from) {
        int end = from;
        int i = from;
        while (i < edits.size()) {
            if (edits.get(i).op() != SAME) {
                end = ++i;
                continue;
            }
            int same = i;
            while (same < edits.size() && edits.get(same).op() == SAME) {
                same++;
            }
            if (same == edits.size() || same - i > 2 * CONTEXT) {
                break;
            }
            i = same;
        }
        return end;
    }

    private static String range(int linesBefore, int count) {
        if (count == 1) {
            return Integer.toString(linesBefore + 1);
        }
        return (count == 0 ? linesBefore : linesBefore + 1) + "," + count;
    }

    private static void appendLine(StringBuilder out, Edit edit) {
        String line = edit.line();
        out.append(edit.op());
        if (line.endsWith("\n")) {
            out.append(line);
        } else {
            out.append(line).append("\n\\ No newline at end of file\n");
        }
    }

    /** One line of the script: kept, removed or added. */
    private record Edit(char op, String line) {}
}
