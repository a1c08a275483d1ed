package dev.tether.executor.domain;

import dev.tether.core.blob.BlobRef;
import java.util.Objects;

/** What the executor records of a call in its ledger: that it started, or how it ended. Immutable values. */
public sealed interface CallOutcome permits CallOutcome.Started, CallOutcome.Ended {

    /** Which attempt it is, from 1. */
    int attempt();

    /**
     * The tool is about to run; written durably before it does. The hashes are the tool's {@code Intent}: null for a
     * tool without a checkable effect. {@code externalKey} is the key the tool is handed, which a reconciliation looks up.
     */
    record Started(int attempt, String beforeHash, String expectedAfterHash, String externalKey) implements CallOutcome {

        public Started {
            Objects.requireNonNull(externalKey, "externalKey");
        }
    }

    /**
     * The call ended.
     *
     * @param state      never null, never STARTED
     * @param content    what the model sees, never null
     * @param artifact   the offloaded content, else null
     * @param beforeHash for file tools, else null
     * @param afterHash  for file tools, else null
     */
    record Ended(CallState state, int attempt, String content, BlobRef artifact, String beforeHash, String afterHash)
            implements CallOutcome {
        public Ended {
            Objects.requireNonNull(state, "state");
            Objects.requireNonNull(content, "content");
            if (!state.ended()) {
                throw new IllegalArgumentException("an end cannot be " + state);
            }
        }

        /** An end reached without the tool's output: no artifact, no hashes. */
        static Ended of(CallState state, int attempt, String content) {
            return new Ended(state, attempt, content, null, null, null);
        }
    }
}
