package dev.tether.tools.sandbox;

import java.util.Objects;

/** A {@code secret://name} reference that names no secret. The message names the reference. Immutable. */
public final class UnknownSecretException extends RuntimeException {

    private final String reference;

    /** @param reference the reference as written, {@code secret://name} */
    public UnknownSecretException(String reference) {
        super("unknown secret " + Objects.requireNonNull(reference, "reference"));
        this.reference = reference;
    }

    /** The reference as written, {@code secret://name}. */
    public String reference() {
        return reference;
    }
}
