package dev.tether.projector.context;

import java.util.Locale;
import java.util.Optional;

/** The provider message format a model context is rendered in. */
public enum ContextFormat {
    /** OpenAI chat completions: system/user/assistant/tool messages, tool_calls with tool_call_id. */
    OPENAI(true),
    /** Anthropic messages: a separate system prompt, user/assistant turns with tool_use/tool_result blocks. */
    ANTHROPIC(false);

    private final boolean turnsApart;

    ContextFormat(boolean turnsApart) {
        this.turnsApart = turnsApart;
    }

    /**
     * Whether each turn becomes messages of its own, whatever turns are next to it (OpenAI's format), so a context's
     * messages are those of its parts one after the other and its {@link TokenCounter} count is the sum of theirs.
     * Anthropic's format merges consecutive turns of one role into one message.
     */
    public boolean rendersTurnsApart() {
        return turnsApart;
    }

    public static Optional<ContextFormat> fromWireName(String name) {
        for (ContextFormat f : values()) {
            if (f.name().toLowerCase(Locale.ROOT).equals(name)) {
                return Optional.of(f);
            }
        }
        return Optional.empty();
    }
}
