package dev.tether.tools.sandbox;

import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Replaces {@code secret://name} references in an argument by the secrets' values, and registers each value with
 * the call's {@link OutputRedactor}, so that output echoing it is redacted. A name is letters, digits and {@code _},
 * in parts joined by single {@code .} or {@code -}: {@code secret://github.token} and {@code secret://db-password}
 * are references, and in {@code secret://token.} the final dot is not part of the name.
 *
 * <p>The resolved text holds secret values: pass it to the process or request that needs it, and nowhere else.
 *
 * <p>Thread-safe if its provider is.
 */
public final class SecretResolver {

    /** A reference; group {@code name} is the secret's name. */
    public static final Pattern REFERENCE = Pattern.compile("secret://(?<name>[A-Za-z0-9_]+(?:[.-][A-Za-z0-9_]+)*)");

    private final SecretProvider provider;
    private final OutputRedactor redactor;

    /**
     * @param provider where secrets are looked up, never null
     * @param redactor the call's redactor, with which each resolved value is registered; never null
     */
    public SecretResolver(SecretProvider provider, OutputRedactor redactor) {
        this.provider = Objects.requireNonNull(provider, "provider");
        this.redactor = Objects.requireNonNull(redactor, "redactor");
    }

    /**
     * @param text an argument, never null
     * @return {@code text} with every reference replaced by its secret's value; {@code text} itself if it has none
     * @throws UnknownSecretException naming the first reference to a secret the provider does not have
     */
    public String resolveIn(String text) {
        Matcher reference = REFERENCE.matcher(text);
        var out = new StringBuilder(text.length());
        int copiedUpTo = 0;
        while (reference.find()) {
            String name = reference.group("name");
            String value = provider.resolve(name).orElseThrow(() -> new UnknownSecretException(reference.group()));
            redactor.registerSecret(name, value);
            out.append(text, copiedUpTo, reference.start()).append(value);
            copiedUpTo = reference.end();
        }
        return copiedUpTo == 0 ? text : out.append(text, copiedUpTo, text.length()).toString();
    }
}
