package dev.tether.projector.context;

import java.util.List;
import java.util.Map;

/**
 * A rendered model context.
 *
 * @param format          the provider format
 * @param system          Anthropic only: the system prompt, sent apart from the messages; null for OpenAI
 * @param messages        the messages, as JSON-ready maps (String, Number, Boolean, List and Map values only),
 *                        exactly as the provider's API takes them
 * @param stablePrefixSize how many of {@code messages}, from the start, are the stable prefix: the rest is the
 *                        volatile tail, which changes with every event
 */
public record ModelContext(ContextFormat format, String system, List<Map<String, Object>> messages, int stablePrefixSize) {
    public ModelContext {
        messages = List.copyOf(messages);
    }
}
