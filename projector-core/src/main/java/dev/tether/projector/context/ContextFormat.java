package dev.tether.projector.context;

import java.util.Locale;
import java.util.Optional;

/** The provider message format a model context is rendered in. */
public enum ContextFormat {
    /** OpenAI chat completions: system/user/assistant/tool messages, tool_calls with tool_call_id. */
    OPENAI,
    /** Anthropic messages: a separate system prompt, user/assistant turns with tool_use/tool_result blocks. */
    ANTHROPIC;

    public static Optional<ContextFormat> fromWireName(String name) {
        for (ContextFormat f : values()) {
            if (f.name().toLowerCase(Locale.ROOT).equals(name)) {
                return Optional.of(f);
            }
        }
        return Optional.empty();
    }
}
