package dev.tether.client;

/** The provider format of a model context: OpenAI chat messages, or Anthropic messages with the system prompt apart. */
public enum ContextFormat {
    OPENAI("openai"),
    ANTHROPIC("anthropic");

    private final String wireName;

    ContextFormat(String wireName) {
        this.wireName = wireName;
    }

    /** The name the projector's {@code format} parameter takes. */
    public String wireName() {
        return wireName;
    }
}
