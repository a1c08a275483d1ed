package dev.tether.core.secrets;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * What {@link SecretScrubber#scrub} made of a text.
 *
 * @param text the text with every detected secret replaced by {@code [REDACTED:<kind>]}; null for a null input
 * @param redactions how many secrets were replaced
 * @param byKind how many secrets of each kind were replaced, by kind in alphabetical order; empty when none were
 */
public record Scrubbed(String text, int redactions, Map<String, Integer> byKind) {

    public Scrubbed {
        if (redactions < 0) {
            throw new IllegalArgumentException("redactions must not be negative, got " + redactions);
        }
        byKind = Collections.unmodifiableMap(new TreeMap<>(byKind));
    }

    /** Whether anything was redacted. */
    public boolean redactedAny() {
        return redactions > 0;
    }
}
