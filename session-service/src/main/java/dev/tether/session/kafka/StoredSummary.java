package dev.tether.session.kafka;

import dev.tether.session.domain.SessionSummary;

/**
 * A {@link SessionSummary} as the {@value StoreNames#SESSIONS_BY_TENANT} store and its changelog keep it: the fields of
 * the current version of its format ({@link SequencerStoreFormats#SUMMARIES}), in order. It changes only with a new version of
 * the format; the domain record may change freely, and is mapped here.
 */
record StoredSummary(String sessionId, String tenantId, String owner, String status, long lastSeq, long epoch, String workerId,
                     String modelId, String harnessVersion, String parentSessionId) {

    static StoredSummary of(SessionSummary s) {
        return new StoredSummary(s.sessionId(), s.tenantId(), s.owner(), s.status(), s.lastSeq(), s.epoch(), s.workerId(), s.modelId(),
                s.harnessVersion(), s.parentSessionId());
    }

    SessionSummary toSummary() {
        return new SessionSummary(sessionId, tenantId, owner, status, lastSeq, epoch, workerId, modelId, harnessVersion, parentSessionId,
                null); // the start is the head's (SessionStores#sessions)
    }
}
