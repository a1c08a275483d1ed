package dev.tether.tools;

import java.util.Objects;

/**
 * What the executor recorded when it STARTED a call, which {@link Tool#reconcile} compares with the world.
 *
 * @param idempotencyKey    the key the start handed the tool ({@link ToolContext#idempotencyKey()} then), by which a
 *                          tool that calls an external system looks its effect up; never null
 * @param tool              the tool's name, never null
 * @param argumentsJson     the arguments as given, with {@code secret://} references unresolved; never null
 * @param beforeHash        {@link Intent#beforeHash()}, null when the tool has none
 * @param expectedAfterHash {@link Intent#expectedAfterHash()}, null when the tool has none
 * @param attempt           which attempt this is, from 1
 */
public record LedgerEntry(
        String idempotencyKey, String tool, String argumentsJson, String beforeHash, String expectedAfterHash,
        int attempt) {

    public LedgerEntry {
        Objects.requireNonNull(idempotencyKey, "idempotencyKey");
        Objects.requireNonNull(tool, "tool");
        Objects.requireNonNull(argumentsJson, "argumentsJson");
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt starts at 1, got " + attempt);
        }
    }

    /** The entry for a call about to run with {@code intent}. */
    public static LedgerEntry started(
            String idempotencyKey, String tool, String argumentsJson, Intent intent, int attempt) {
        return new LedgerEntry(idempotencyKey, tool, argumentsJson, intent.beforeHash(), intent.expectedAfterHash(),
                attempt);
    }

    /** The intent recorded. */
    public Intent intent() {
        return new Intent(beforeHash, expectedAfterHash);
    }
}
