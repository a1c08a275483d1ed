package dev.tether.core.event;

import dev.tether.core.blob.BlobRef;
import java.util.regex.Pattern;

/**
 * {@code framework_state}: state an agent framework keeps with its session that Tether stores, offloads, scrubs and
 * replays, but never interprets (docs/ARCHITECTURE.md §4): a LangGraph checkpoint (channel versions, versions seen,
 * metadata, channel values that are not messages), its pending writes, an OpenAI Agents SDK session's items. Written by
 * clients only. The projector's fold and the model context ignore it; only its seq moves the session's position.
 *
 * @param framework which framework wrote it, e.g. {@code langgraph}: 1 to {@value #MAX_NAME} characters of
 *                  {@code [a-z0-9._-]}, the first a letter or digit
 * @param kind      what sort of state it is, e.g. {@code checkpoint} or {@code writes}: the same rule as {@code framework}
 * @param key       what it is the state of, e.g. a checkpoint id: 1 to {@value #MAX_KEY} characters, no control character
 * @param content   the state as JSON text that parses as one JSON value; when {@code artifact} is set, only its
 *                  preview (a prefix of it, which need not parse)
 * @param artifact  the whole content in the blob store, set by Tether when it offloads large content; null otherwise
 */
public record FrameworkState(String framework, String kind, String key, String content, BlobRef artifact) implements EventPayload {

    public static final String TYPE = "framework_state";

    /** The longest {@code framework} and {@code kind}. */
    public static final int MAX_NAME = 64;
    /** The longest {@code key}. */
    public static final int MAX_KEY = 512;

    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]*");

    public FrameworkState {
        name(framework, "framework");
        name(kind, "kind");
        Fields.text(key, "key");
        if (key.isEmpty() || key.length() > MAX_KEY) {
            throw new InvalidEventException("key", "must be 1 to " + MAX_KEY + " characters");
        }
        if (key.chars().anyMatch(Character::isISOControl)) {
            throw new InvalidEventException("key", "must not contain control characters");
        }
        Fields.text(content, "content");
        if (artifact == null) {
            String problem = JsonSyntax.problem(content);
            if (problem != null) {
                throw new InvalidEventException("content", "must be JSON text that parses as one JSON value: " + problem);
            }
        }
    }

    /** State whose content the event holds whole (Tether may still offload it when it is large). */
    public FrameworkState(String framework, String kind, String key, String content) {
        this(framework, kind, key, content, null);
    }

    private static void name(String value, String field) {
        Fields.text(value, field);
        if (value.isEmpty() || value.length() > MAX_NAME || !NAME.matcher(value).matches()) {
            throw new InvalidEventException(field, "must be 1 to " + MAX_NAME + " characters of lower-case letters, digits, '.', '_'"
                    + " and '-', starting with a letter or digit");
        }
    }

    @Override
    public String type() {
        return TYPE;
    }
}
