package dev.tether.langchain4j;

import java.util.Arrays;
import java.util.List;

/**
 * How a memory's new list relates to its old one: which old message each new one is (or none: a new message). Pure.
 *
 * <p>LangChain4j's memories change a list in a few ways: they append (every {@code add}), evict the oldest messages but
 * a leading system message (a window), replace the system message (dropping the old one, adding the new one), or put a
 * summary in front of the messages they keep (a summarizer). So the old list's last message is looked for first: the
 * longest run of the new list that ends with it and matches the old list's tail is what stays of the recent messages;
 * what follows it is new; what precedes it is matched in order against the rest of the old list (a system message kept
 * first). Without the old list's last message in it, the new list is matched in order against the old one.
 *
 * @param matches for each message of the new list, the index of the old message it is, or -1 for a new one; the
 *                indexes that are not -1 increase
 */
record Rewrite(int[] matches) {

    Rewrite {
        matches = matches.clone();
    }

    @Override
    public int[] matches() {
        return matches.clone();
    }

    /** Whether new message {@code i} is old message {@code matches()[i]}. */
    boolean kept(int i) {
        return matches[i] >= 0;
    }

    int oldIndex(int i) {
        return matches[i];
    }

    int size() {
        return matches.length;
    }

    /** How the list {@code next} relates to {@code old} (messages compared with {@code equals}). */
    static Rewrite of(List<?> old, List<?> next) {
        int n = old.size();
        int m = next.size();
        int[] matches = new int[m];
        Arrays.fill(matches, -1);
        if (n == 0 || m == 0) {
            return new Rewrite(matches);
        }
        if (m >= n && next.subList(0, n).equals(old)) {
            for (int i = 0; i < n; i++) {
                matches[i] = i;
            }
            return new Rewrite(matches);
        }
        // the longest run of next ending in old's last message and matching old's tail
        int bestEnd = -1;
        int bestLength = 0;
        for (int p = m - 1; p >= 0; p--) {
            if (!next.get(p).equals(old.get(n - 1))) {
                continue;
            }
            int length = 1;
            while (p - length >= 0 && n - 1 - length >= 0 && next.get(p - length).equals(old.get(n - 1 - length))) {
                length++;
            }
            if (length > bestLength) {
                bestLength = length;
                bestEnd = p;
            }
        }
        if (bestEnd < 0) {
            matchInOrder(old, next, 0, n, 0, m, matches);
            return new Rewrite(matches);
        }
        int runStart = bestEnd - bestLength + 1;
        for (int k = 0; k < bestLength; k++) {
            matches[runStart + k] = n - bestLength + k;
        }
        matchInOrder(old, next, 0, n - bestLength, 0, runStart, matches);
        return new Rewrite(matches);
    }

    /** Matches next[nextFrom, nextTo) in order against old[oldFrom, oldTo): each to the first equal old message after the last matched. */
    private static void matchInOrder(List<?> old, List<?> next, int oldFrom, int oldTo, int nextFrom, int nextTo, int[] matches) {
        int j = oldFrom;
        for (int i = nextFrom; i < nextTo && j < oldTo; i++) {
            for (int k = j; k < oldTo; k++) {
                if (next.get(i).equals(old.get(k))) {
                    matches[i] = k;
                    j = k + 1;
                    break;
                }
            }
        }
    }
}
