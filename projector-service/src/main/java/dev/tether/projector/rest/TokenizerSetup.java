package dev.tether.projector.rest;

import dev.tether.projector.context.TokenCounter;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** The tokenizer, one per service: loading an encoding is not cheap. */
public class TokenizerSetup {

    @Produces
    @Singleton
    TokenCounter tokenCounter() {
        return new TokenCounter();
    }
}
