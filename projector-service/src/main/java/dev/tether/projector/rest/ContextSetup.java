package dev.tether.projector.rest;

import dev.tether.projector.context.TokenCounter;
import dev.tether.projector.domain.ContextSource;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** What contexts are rendered with, one per service: the tokenizer (loading an encoding is not cheap), the kept fork parts. */
public class ContextSetup {

    @Produces
    @Singleton
    TokenCounter tokenCounter() {
        return new TokenCounter();
    }

    @Produces
    @Singleton
    ContextSource.ForkBases forkBases() {
        return new ContextSource.ForkBases();
    }
}
