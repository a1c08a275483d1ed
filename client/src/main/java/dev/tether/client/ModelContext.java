package dev.tether.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.client.internal.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A session's model context, ready to send to the provider: system prompt, pinned objective, the
 * "session so far" summary if compacted, authoritative facts, the events since, every dangling tool
 * call closed, and the volatile values last so the prefix stays byte-stable across turns.
 *
 * @param format            {@code openai} or {@code anthropic}
 * @param system            the system prompt, for the Anthropic format (OpenAI has it as the first message)
 * @param messagesJson      the {@code messages} array, as JSON text in the provider's format
 * @param stablePrefixSize  how many leading messages stay byte-identical as the session goes on (cacheable)
 * @param tokens            the context's size in tokens, counted with {@code tokenizer}
 * @param tokenizer         the tokenizer that counted them (e.g. {@code o200k_base}; an approximation for other providers)
 * @param window            the pinned model's context window
 * @param compactionAdvised true above about 75 % of the window: time to append a {@code context_compacted}
 * @param atSeq             the last seq the context includes
 * @param droppedEvents     events left out to fit a token limit; 0 without one
 * @param json              the whole answer, as JSON text
 */
public record ModelContext(String format, Optional<String> system, String messagesJson, int stablePrefixSize, int tokens, String tokenizer,
                           int window, boolean compactionAdvised, long atSeq, int droppedEvents, String json) {

    public ModelContext {
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(messagesJson, "messagesJson");
    }

    /** The messages, parsed (fresh copies on every call). */
    public List<JsonNode> messages() {
        var out = new ArrayList<JsonNode>();
        Json.parse(messagesJson).forEach(out::add);
        return out;
    }
}
