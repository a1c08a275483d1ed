package dev.tether.cli;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as people type them ({@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}, or ISO {@code PT30S}) and as they read them. */
public final class Durations {

    private static final Pattern SHORT = Pattern.compile("(\\d+)(ms|s|m|h)");
    /**
     * The longest duration taken: Kafka's and the registry client's timeouts are {@code int} milliseconds, so a longer one
     * would wrap around to a negative timeout deep inside a client. 596 hours, nearly 25 days.
     */
    static final Duration MAX = Duration.ofHours(596);

    private Durations() {}

    /** @throws IllegalArgumentException naming the accepted forms, or the range: from 1ms to {@link #MAX} */
    public static Duration parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        Matcher m = SHORT.matcher(t);
        Duration d;
        try {
            if (m.matches()) {
                long n = Long.parseLong(m.group(1));
                d = switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    default -> Duration.ofHours(n);
                };
            } else {
                d = Duration.parse(text.trim().toUpperCase(Locale.ROOT));
            }
        } catch (java.time.format.DateTimeParseException e) {
            throw new IllegalArgumentException("'" + text + "' is not a duration (e.g. 500ms, 30s, 5m, 1h)");
        } catch (ArithmeticException | NumberFormatException e) { // digits beyond a long, or seconds beyond one
            d = MAX.plusHours(1);
        }
        if (d.isZero() || d.isNegative()) {
            throw new IllegalArgumentException("'" + text + "' is not a positive duration");
        }
        if (d.compareTo(Duration.ofMillis(1)) < 0 || d.compareTo(MAX) > 0) {
            throw new IllegalArgumentException("'" + text + "' is out of range: from 1ms to " + MAX.toHours() + "h");
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
