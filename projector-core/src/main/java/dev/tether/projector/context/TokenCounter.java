package dev.tether.projector.context;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Counts the tokens of a {@link ModelContext}: the tokens of each message's JSON text, plus those of
 * the system prompt when it is sent apart (Anthropic).
 *
 * <p>The tokenizer is OpenAI's {@code o200k_base} (the GPT-4o family's), via jtokkit. For other
 * providers' models, Anthropic's among them, the count is an approximation: their tokenizers differ,
 * and every provider adds a few tokens of framing per message that are not counted here. Text that
 * looks like a special token (e.g. {@code <|endoftext|>}) is counted as ordinary text.
 *
 * <p>Thread-safe. Loading the encoding takes a few hundred milliseconds (the lazy registry loads
 * {@code o200k_base} only), so create one counter and share it.
 */
public final class TokenCounter {

    /** The tokenizer's name, as reported next to a count: OpenAI's {@code o200k_base}. */
    public static final String NAME = "o200k_base";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Encoding encoding;

    public TokenCounter() {
        this.encoding = Encodings.newLazyEncodingRegistry().getEncoding(EncodingType.O200K_BASE);
    }

    /** The tokens of {@code context}'s messages as JSON text, plus its separate system prompt if any. */
    public int count(ModelContext context) {
        Objects.requireNonNull(context, "context");
        int tokens = context.system() == null ? 0 : encoding.countTokensOrdinary(context.system());
        for (Map<String, Object> message : context.messages()) {
            tokens += encoding.countTokensOrdinary(json(message));
        }
        return tokens;
    }

    /**
     * A count of contexts that share messages, such as the candidates of one trimming: each distinct message is encoded
     * once, later contexts look its count up by its JSON text. For one request; not thread-safe.
     */
    public Memo memo() {
        return new Memo();
    }

    /** Counts as {@link TokenCounter#count} does, remembering each message's count. */
    public final class Memo {

        private final Map<String, Integer> byJson = new HashMap<>();

        private Memo() {}

        /** The tokens of {@code context}, as {@link TokenCounter#count} counts them. */
        public int count(ModelContext context) {
            Objects.requireNonNull(context, "context");
            int tokens = context.system() == null ? 0 : byJson.computeIfAbsent(context.system(), encoding::countTokensOrdinary);
            for (Map<String, Object> message : context.messages()) {
                tokens += byJson.computeIfAbsent(json(message), encoding::countTokensOrdinary);
            }
            return tokens;
        }
    }

    private static String json(Map<String, Object> message) {
        try {
            return JSON.writeValueAsString(message);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("a message is not JSON-ready: " + e.getOriginalMessage(), e);
        }
    }
}
