package dev.tether.core.id;

import java.time.Instant;

/**
 * The idempotency key of a tool call: {@code <sessionId>/<requestSeq>/<callId>}, derived from the event that asked for
 * the call, never from an attempt, so a replay after a crash finds the earlier outcome instead of running the tool
 * again. The projector derives it for the requests it emits, the approval-service for the
 * results it writes in the executor's stead; both through here. A RETRY decision on an UNKNOWN call gives the call a
 * new key: the same derivation, from the seq of the decision.
 *
 * <p>The shape is a wire contract: it is the key of {@code tool-requests} and {@code tool-outcomes} records and stands
 * in {@code tool_result} events and checkpoints already written, so it never changes.
 *
 * <p>It repeats, though, across the sessions of one id: a session erased and made again under its id asks for its
 * calls at the same seqs, often with the same callIds. Inside Tether each record also carries when its call was
 * authorized, which tells them apart. An external system sees only the key a tool hands it, so tools are handed the
 * {@link #external external key}, which adds the session's start. Stateless and thread-safe.
 */
public final class IdempotencyKey {

    private IdempotencyKey() {}

    /**
     * The key of call {@code callId} asked for by the event at {@code requestSeq} of {@code sessionId}.
     *
     * @param sessionId  the session; not null (Tether's ids never contain {@code /})
     * @param requestSeq the seq of the event that asked for the call (an assistant message, or a RETRY decision)
     * @param callId     the call's id within that event; not null
     */
    public static String of(String sessionId, long requestSeq, String callId) {
        return sessionId + "/" + requestSeq + "/" + callId;
    }

    /**
     * The key a tool hands to external systems for the call of {@code key}: {@code <key>~<sessionStartedAt in epoch
     * milliseconds>}, which no later session under the same id repeats (its first event is accepted later). The executor
     * and the SDKs hand it to tools and reconciliation hooks, and record it with the start ({@code tool-outcomes}'
     * {@code externalKey}, {@code tool_call_started}'s), so that a reconciliation looks up the key the start handed out.
     *
     * @param key              the call's key ({@link #of})
     * @param sessionStartedAt when the sequencer accepted the session's first event (its {@code occurredAt}); null when
     *                         not known (a request of a projector before it), which gives {@code key} itself
     */
    public static String external(String key, Instant sessionStartedAt) {
        return sessionStartedAt == null ? key : key + "~" + sessionStartedAt.toEpochMilli();
    }

    /**
     * The seq of the event that asked for the call of {@code key}, as {@link #of} put it there: the call's
     * {@code assistant_message}, or the RETRY decision that gave the call this key.
     *
     * @throws IllegalArgumentException if {@code key} is not of that shape
     */
    public static long requestSeqOf(String key) {
        int first = key.indexOf('/');
        int second = first < 0 ? -1 : key.indexOf('/', first + 1);
        if (first <= 0 || second < 0 || second == key.length() - 1) {
            throw new IllegalArgumentException("not an idempotency key <sessionId>/<requestSeq>/<callId>: '" + key + "'");
        }
        try {
            long seq = Long.parseLong(key.substring(first + 1, second));
            if (seq < 1) {
                throw new IllegalArgumentException("the requestSeq of idempotency key '" + key + "' is not a seq");
            }
            return seq;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("the requestSeq of idempotency key '" + key + "' is not a number", e);
        }
    }
}
