package dev.tether.session.rest;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.tether.session.domain.SessionSummary;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import dev.tether.kit.service.openapi.ApiField;
import dev.tether.kit.service.openapi.ApiType;

/**
 * The session API's answers, for its OpenAPI document only ({@link SessionApiDocument}): the resources build them as JSON
 * trees with exactly these fields. A field of type {@link Optional} may be absent; every other one is always there.
 */
final class Answers {

    private Answers() {}

    private static final String STARTED_AT = "when the session's first event was accepted, which tells it apart from an erased "
            + "session of the same id: send it with this session's appends (sessionStartedAt) so that they are refused (not_found) "
            + "once the session is erased, even if another is made under its id; null for a session stored before an earlier "
            + "release kept it";

    @ApiType(description = "A session created: its id, the seq of its session_started (1), the harness version and model it is "
            + "pinned to, and how many secrets were scrubbed from the request.")
    record SessionCreated(String sessionId, long seq, String harnessVersion, String modelId, int redactions,
                          @ApiField(nullable = true, description = STARTED_AT) Instant sessionStartedAt) {}

    @ApiType(description = "An append's verdict: each event's seq (duplicate: an eventId appended before, with its original seq), "
            + "the session's last seq, and how many secrets were scrubbed.")
    record Appended(List<AppendedEvent> appended, long lastSeq, int redactions) {}

    @ApiType(description = "One event of an append.")
    record AppendedEvent(String eventId, long seq, boolean duplicate) {}

    @ApiType(description = "A claim: the worker's new epoch, whether the session was resumed from another worker (reason CRASH "
            + "or DEPLOY, null otherwise), and the session's last seq.")
    record Claimed(long epoch, boolean resumed,
                   @ApiField(nullable = true, description = "CRASH, DEPLOY or MANUAL; null when nobody held the session") String reason,
                   long lastSeq, @ApiField(nullable = true, description = STARTED_AT) Instant sessionStartedAt) {}

    @ApiType(description = "A session migrated to another harness version.")
    record Migrated(String harnessVersion, long lastSeq) {}

    @ApiType(description = "A session erased: its id and how many events were tombstoned.")
    record Erased(String erased, long events) {}

    @ApiType(description = "A subagent created: a session of its own whose parent is the path's session.")
    record SubagentCreated(String sessionId, String parentSessionId, long seq, String harnessVersion, String modelId, String toolMode,
                           int redactions, @ApiField(nullable = true, description = STARTED_AT) Instant sessionStartedAt) {}

    @ApiType(description = "A fork created: a new session starting with session_forked, pinned as the parent was at atSeq.")
    record Forked(String sessionId, String parentSessionId, long atSeq, long seq, String harnessVersion, String modelId,
                  @ApiField(nullable = true, description = "the most tokens the fork may use; null when unbounded") Long tokenBudget,
                  @ApiField(nullable = true, description = STARTED_AT) Instant sessionStartedAt) {}

    @ApiType(description = "A page of the caller's tenant's sessions, in id order.")
    record Sessions(List<SessionSummary> sessions,
                    @ApiField(description = "where the next page starts (pass it as after); absent on the last page")
                    Optional<String> nextAfter) {}

    @ApiType(description = "Every harness version: registered ones and those that still have open sessions.")
    record HarnessVersions(List<HarnessVersionEntry> versions) {}

    @ApiType(description = "One harness version.")
    record HarnessVersionEntry(String version, int weight,
                               @ApiField(description = "the percent of new sessions it gets now") double share,
                               @ApiField(values = {"ACTIVE", "DRAINING", "RETIRED", "UNREGISTERED"}) String state,
                               @JsonProperty("default") @ApiField(description = "true for the implicit default version") Optional<Boolean> isDefault,
                               Optional<String> modelId, long openSessions) {}
}
