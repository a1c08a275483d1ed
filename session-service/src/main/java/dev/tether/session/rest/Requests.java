package dev.tether.session.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.core.event.InvalidEventException;
import dev.tether.core.event.ToolMode;
import dev.tether.core.id.ClientIds;
import dev.tether.kit.service.openapi.ApiField;
import dev.tether.kit.service.openapi.ApiType;
import dev.tether.kit.service.rest.ApiException;
import dev.tether.kit.service.rest.StrictInput;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** The JSON bodies the session API accepts; each validates itself and names the offending field. */
final class Requests {

    private Requests() {}

    /** A request body as a JSON object ({@link StrictInput#json}), not null or an array. */
    static JsonNode object(ObjectMapper mapper, byte[] bytes) {
        JsonNode tree = StrictInput.json(mapper, bytes);
        if (tree == null) {
            throw new ApiException(400, "malformed_json", "the request needs a JSON body");
        }
        if (!tree.isObject()) {
            throw ApiException.badRequest(InvalidEventException.WHOLE, "must be a JSON object");
        }
        return tree;
    }

    static String id(String value, String field) {
        if (value != null && !ClientIds.isValid(value)) {
            throw new InvalidEventException(field, "must be 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit");
        }
        return value;
    }

    /**
     * The id of the session a create, a subagent or a fork makes ({@code kind}): the one the request names; or, for a request
     * that names its eventId, one derived from the tenant, the kind and that eventId, so that the request sent again after a
     * lost answer lands on the session it made (where its eventId appends nothing) rather than making a second one;
     * otherwise a fresh one.
     */
    static String sessionIdFor(String sessionId, String tenantId, String kind, String eventId) {
        if (sessionId != null) {
            return sessionId;
        }
        if (eventId != null) {
            return UUID.nameUUIDFromBytes((tenantId + "\0" + kind + "\0" + eventId).getBytes(StandardCharsets.UTF_8)).toString();
        }
        return UUID.randomUUID().toString();
    }

    /** The value; a missing one "is required", a blank one "must not be blank" (the caller sent the field). */
    static String required(String value, String field) {
        if (value == null) {
            throw new InvalidEventException(field, "is required");
        }
        if (value.isBlank()) {
            throw new InvalidEventException(field, "must not be blank");
        }
        return value;
    }

    @ApiType(description = "A new session. Leave modelId out to take the harness version's model; sessionId and eventId out to "
            + "have them chosen; a re-sent eventId appends nothing.", required = {"objective", "toolMode"})
    record CreateSession(String objective, String systemPrompt, String modelId, ToolMode toolMode, List<String> constraints,
                         String harnessVersion, Long tokenBudget, String sessionId, String eventId,
                         List<dev.tether.core.event.HarnessTool> harnessTools) {
        CreateSession {
            required(objective, "objective");
            systemPrompt = systemPrompt == null ? "" : systemPrompt;
            if (modelId != null && modelId.isBlank()) { // null: the harness version's model (HarnessAssignment.pin)
                throw new InvalidEventException("modelId", "must not be blank; leave it out to take the harness version's model");
            }
            if (modelId != null) { // kept in the session's head, written again by every append
                label(modelId, "modelId");
            }
            if (toolMode == null) {
                throw new InvalidEventException("toolMode", "is required: READ_ONLY or WRITE");
            }
            constraints = constraints == null ? List.of() : constraints;
            for (int i = 0; i < constraints.size(); i++) {
                if (constraints.get(i) == null) {
                    throw new InvalidEventException("constraints[" + i + "]", "must be a string");
                }
            }
            id(harnessVersion, "harnessVersion");
            if (tokenBudget != null && tokenBudget < 1) {
                throw new InvalidEventException("tokenBudget", "must be at least 1");
            }
            id(sessionId, "sessionId");
            id(eventId, "eventId");
        }
    }

    @ApiType(description = "Events to append, all or none. expectedSeq: the seq the client last saw (seq_conflict if the "
            + "session moved on); epoch: the worker's claim (stale_epoch if another worker claimed since); sessionStartedAt: the "
            + "start its create or claim answered (not_found if the session of that start was erased, even when another one "
            + "has its id now).", required = "events")
    record AppendEvents(@ApiField(ref = "NewEvent") List<JsonNode> events, Long expectedSeq, Long epoch, Instant sessionStartedAt) {
        AppendEvents {
            if (events == null || events.isEmpty()) {
                throw new InvalidEventException("events", "must hold at least one event");
            }
            if (expectedSeq != null && expectedSeq < 0) {
                throw new InvalidEventException("expectedSeq", "must not be negative");
            }
            if (epoch != null && epoch < 0) {
                throw new InvalidEventException("epoch", "must not be negative");
            }
        }
    }

    @ApiType(description = "A worker's claim; rollout: a takeover for a deploy rather than a crash; requestId makes a retried "
            + "claim append nothing.", required = {"workerId", "harnessVersion"})
    record Claim(String workerId, String harnessVersion, Boolean rollout, String requestId) {
        Claim {
            label(required(workerId, "workerId"), "workerId");
            id(required(harnessVersion, "harnessVersion"), "harnessVersion");
            id(requestId, "requestId");
        }
    }

    /** The most characters of a worker's id (a host name and a process id) or a model's id, with room to spare. */
    static final int MAX_LABEL = 256;

    /**
     * A name a client gives itself or what it runs and Tether stores and shows (a worker's id, a model's id): at most
     * {@value #MAX_LABEL} characters, no control characters. Looser than {@link #id}, since adapters name a worker after its
     * host and providers name models with ':' and '/'.
     */
    static String label(String value, String field) {
        if (value.length() > MAX_LABEL) {
            throw new InvalidEventException(field, "must be at most " + MAX_LABEL + " characters");
        }
        if (value.chars().anyMatch(Character::isISOControl)) {
            throw new InvalidEventException(field, "must not contain control characters");
        }
        return value;
    }

    @ApiType(description = "An operator's move of a session to another harness version.", required = "toVersion")
    record Migrate(String toVersion, String requestId) {
        Migrate {
            id(required(toVersion, "toVersion"), "toVersion");
            id(requestId, "requestId");
        }
    }

    @ApiType(description = "A subagent: a tool mode no wider and a tokenBudget no larger than what its parent has left.",
            required = {"objective", "toolMode"})
    record Subagent(String objective, ToolMode toolMode, Long tokenBudget, String systemPrompt, List<String> constraints,
                    String sessionId, String eventId, List<dev.tether.core.event.HarnessTool> harnessTools) {
        Subagent {
            required(objective, "objective");
            if (toolMode == null) {
                throw new InvalidEventException("toolMode", "is required: READ_ONLY or WRITE");
            }
            if (tokenBudget != null && tokenBudget < 1) {
                throw new InvalidEventException("tokenBudget", "must be at least 1");
            }
            systemPrompt = systemPrompt == null ? "" : systemPrompt;
            constraints = constraints == null ? List.of() : constraints;
            id(sessionId, "sessionId");
            id(eventId, "eventId");
        }
    }

    @ApiType(description = "A fork at a seq of the parent. tokenBudget: at most what the parent had left of its budget at "
            + "atSeq, which is the fork's budget when none is asked for (budget_exceeded if larger); any, for a parent without one.",
            required = "atSeq")
    record Fork(Long atSeq, String sessionId, String eventId, Long tokenBudget) {
        Fork {
            if (atSeq == null) {
                throw new InvalidEventException("atSeq", "is required: the parent's seq to fork at, from 1");
            }
            if (atSeq < 1) {
                throw new InvalidEventException("atSeq", "must be at least 1: the parent's seq to fork at");
            }
            if (tokenBudget != null && tokenBudget < 1) {
                throw new InvalidEventException("tokenBudget", "must be at least 1");
            }
            id(sessionId, "sessionId");
            id(eventId, "eventId");
        }
    }

    @ApiType(description = "A harness version's weight (percent of new sessions), state and pinned model.",
            required = {"version", "weight"})
    record HarnessVersionEntry(String version, Integer weight, @ApiField(values = {"ACTIVE", "DRAINING", "RETIRED"}) String state,
                               String modelId) {
        HarnessVersionEntry {
            id(required(version, "version"), "version");
            if (weight == null || weight < 0 || weight > 100) {
                throw new InvalidEventException("weight", "must be a whole number from 0 to 100");
            }
            state = state == null ? "ACTIVE" : state;
            if (!List.of("ACTIVE", "DRAINING", "RETIRED").contains(state)) {
                throw new InvalidEventException("state", "must be ACTIVE, DRAINING or RETIRED");
            }
            if (modelId != null && modelId.isBlank()) { // a blank model would refuse every new session of the version
                throw new InvalidEventException("modelId", "must not be blank; leave it out to pin no model");
            }
            if (modelId != null) { // the model of every new session of the version, kept in each one's head
                label(modelId, "modelId");
            }
        }
    }
}
