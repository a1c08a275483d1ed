package dev.tether.projector.kafka;

/** Keys of the call-record store: sessionId NUL callId, so one session's records share a prefix. */
final class CallKeys {

    private static final char SEPARATOR = '\u0000';

    private CallKeys() {}

    static String key(String sessionId, String callId) {
        return sessionId + SEPARATOR + callId;
    }

    static String prefix(String sessionId) {
        return sessionId + SEPARATOR;
    }
}
