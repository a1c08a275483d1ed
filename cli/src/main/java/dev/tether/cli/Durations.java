package dev.tether.cli;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as people type them ({@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}, or ISO {@code PT30S}) and as they read them. */
public final class Durations {

    private static final Pattern SHORT = Pattern.compile("(\\d+)(ms|s|m|h)");

    private Durations() {}

    /** @throws IllegalArgumentException naming the accepted forms */
    public static Duration parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        Matcher m = SHORT.matcher(t);
        Duration d;
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            d = switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            };
        } else {
            try {
                d = Duration.parse(text.trim().toUpperCase(Locale.ROOT));
            } catch (java.time.format.DateTimeParseException e) {
                throw new IllegalArgumentException("'" + text + "' is not a duration (e.g. 500ms, 30s, 5m, 1h)");
            }
        }
        if (d.isZero() || d.isNegative()) {
            throw new IllegalArgumentException("'" + text + "' is not a positive duration");
        }
        return d;
    }

    /** {@code 850 ms}, {@code 2.3 s}, {@code 41 s}, {@code 3 min 5 s}. */
    public static String format(Duration d) {
        long millis = d.toMillis();
        if (millis < 1000) {
            return millis + " ms";
        }
        if (millis < 10_000) {
            return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
        }
        long seconds = d.toSeconds();
        if (seconds < 60) {
            return seconds + " s";
        }
        return seconds / 60 + " min" + (seconds % 60 == 0 ? "" : " " + seconds % 60 + " s");
    }
}
