package dev.tether.projector.context;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the tokens of a {@link ModelContext}: the tokens of each message's JSON text, plus those of
 * the system prompt when it is sent apart (Anthropic).
 *
 * <p>The tokenizer is OpenAI's {@code o200k_base} (the GPT-4o family's), via jtokkit. For other
 * providers' models, Anthropic's among them, the count is an approximation: their tokenizers differ,
 * and every provider adds a few tokens of framing per message that are not counted here. Text that
 * looks like a special token (e.g. {@code <|endoftext|>}) is counted as ordinary text.
 *
 * <p>A counter keeps the counts of texts its {@link Memo}s encoded, at most {@code keptCounts} of them (Caffeine chooses
 * which), each under the SHA-256 of the memo's scope and the text (the first 128 bits; the text itself is not kept): a
 * text has the same count every time, and encoding is nearly all the cost of counting a context (the byte pair encoding
 * was about 80 % of the CPU of a read of a context of 2.9 million characters, bench/README.md figure 7). A session's
 * next context shares all but its newest messages with the one before, so a read encodes only those. Kept or not, a
 * count is the same. The scope keeps tenants apart: a count kept for one is never found by another, so no tenant can
 * tell by the speed of its reads whether another's context had some text.
 *
 * <p>Thread-safe. Loading the encoding takes a few hundred milliseconds (the lazy registry loads
 * {@code o200k_base} only), so create one counter and share it.
 */
public final class TokenCounter {

    /** The tokenizer's name, as reported next to a count: OpenAI's {@code o200k_base}. */
    public static final String NAME = "o200k_base";

    /** How many texts' counts a counter keeps unless told: about 100 bytes each, 20 MB in all. */
    public static final long DEFAULT_KEPT_COUNTS = 200_000;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    });

    private final Encoding encoding;
    private final Cache<Digest, Integer> counts; // null when it keeps none
    private final LongAdder encoded = new LongAdder();

    public TokenCounter() {
        this(DEFAULT_KEPT_COUNTS);
    }

    /** A counter that keeps the counts of at most {@code keptCounts} texts (0: none). */
    public TokenCounter(long keptCounts) {
        if (keptCounts < 0) {
            throw new IllegalArgumentException("keptCounts must be at least 0, got " + keptCounts);
        }
        this.encoding = Encodings.newLazyEncodingRegistry().getEncoding(EncodingType.O200K_BASE);
        this.counts = keptCounts == 0 ? null : Caffeine.newBuilder().maximumSize(keptCounts).build();
    }

    /**
     * The tokens of {@code context}'s messages as JSON text, plus its separate system prompt if any: every text encoded,
     * none of their counts kept.
     */
    public int count(ModelContext context) {
        Objects.requireNonNull(context, "context");
        int tokens = context.system() == null ? 0 : encode(context.system());
        for (Map<String, Object> message : context.messages()) {
            tokens += encode(json(message));
        }
        return tokens;
    }

    /** How many texts this counter has encoded: every one {@link #count} was given, and those its memos found no count of. */
    public long encoded() {
        return encoded.sum();
    }

    /**
     * A count of contexts that share messages, such as the candidates of one trimming, within {@code scope} (the tenant
     * whose contexts they are): each distinct message's count is found once, among the counts this counter keeps for the
     * scope or by encoding it, and later contexts look it up by its JSON text. For one request; not thread-safe.
     */
    public Memo memo(String scope) {
        return new Memo(Objects.requireNonNull(scope, "scope"));
    }

    /** Counts as {@link TokenCounter#count} does, remembering each message's count. */
    public final class Memo {

        private final String scope;
        private final Map<String, Integer> byJson = new HashMap<>();

        private Memo(String scope) {
            this.scope = scope;
        }

        /** The tokens of {@code context}, as {@link TokenCounter#count} counts them. */
        public int count(ModelContext context) {
            Objects.requireNonNull(context, "context");
            int system = context.system() == null ? 0 : byJson.computeIfAbsent(context.system(), this::kept);
            return system + count(context.messages());
        }

        /** The tokens of {@code messages}' JSON texts, as {@link TokenCounter#count} counts those of a context's messages. */
        public int count(List<Map<String, Object>> messages) {
            int tokens = 0;
            for (Map<String, Object> message : messages) {
                tokens += byJson.computeIfAbsent(json(message), this::kept);
            }
            return tokens;
        }

        private int kept(String text) {
            return counts == null ? encode(text) : counts.get(Digest.of(scope, text), digest -> encode(text));
        }
    }

    private int encode(String text) {
        encoded.increment();
        return encoding.countTokensOrdinary(text);
    }

    /** The first 128 bits of the SHA-256 of a scope, a zero byte and a text (their UTF-8): what a count is kept under. */
    private record Digest(long high, long low) {
        static Digest of(String scope, String text) {
            MessageDigest sha = SHA_256.get();
            sha.update(scope.getBytes(StandardCharsets.UTF_8));
            sha.update((byte) 0);
            ByteBuffer hash = ByteBuffer.wrap(sha.digest(text.getBytes(StandardCharsets.UTF_8)));
            return new Digest(hash.getLong(), hash.getLong());
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
