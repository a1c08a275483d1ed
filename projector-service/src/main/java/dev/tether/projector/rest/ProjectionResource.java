package dev.tether.projector.rest;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.core.event.ContextCompacted;
import dev.tether.core.event.Event;
import dev.tether.core.id.ClientIds;
import dev.tether.kit.json.EventJson;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.service.auth.Caller;
import dev.tether.kit.service.rest.ApiException;
import dev.tether.kit.service.rest.EventPage;
import dev.tether.kit.service.rest.OwnerRouting;
import dev.tether.kit.service.rest.SseRelay;
import dev.tether.kit.service.rest.StreamEventId;
import dev.tether.kit.service.rest.StrictInput;
import dev.tether.projector.config.ProjectorConfig;
import dev.tether.projector.context.ContextFormat;
import dev.tether.projector.context.ContextRenderer;
import dev.tether.projector.context.ModelContext;
import dev.tether.projector.context.TokenCounter;
import dev.tether.projector.domain.CallRecord;
import dev.tether.projector.domain.ContextInput;
import dev.tether.projector.domain.ContextSource;
import dev.tether.projector.domain.LazyEvents;
import dev.tether.projector.domain.RecoveryReport;
import dev.tether.projector.domain.SessionProjection;
import dev.tether.projector.kafka.ProjectorReads;
import dev.tether.projector.kafka.ProjectorStores;
import dev.tether.projector.kafka.SessionLog;
import jakarta.annotation.security.RolesAllowed;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Multi;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.ParameterIn;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Supplier;

/**
 * Reads of the projection (issue 4): checkpoints (now or at any seq), model context in both
 * provider formats (a fork's following its parent to whichever instance holds it), the original events a
 * compaction must summarize, a session's events, recovery reports and the story of one tool call. Every read is scoped to the caller's tenant; another tenant's session
 * answers 404, like a missing one.
 */
@Path("/v1/sessions/{id}")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({"agent", "approver", "operator", "admin"})
public class ProjectionResource {

    private static final Duration CATCH_UP = Duration.ofSeconds(5);
    private static final String MIN_SEQ = "wait (a few seconds, then 503) until the projection has folded this seq";

    private final Caller caller;
    private final ProjectorReads reads;
    private final EventJson json;
    private final ProjectorConfig config;
    private final TokenCounter tokens;
    private final OwnerRouting routing;
    private final StoreSignals signals;
    private final LiveRelay relay;
    private final ContextSource.ForkBases forkBases;

    @Context
    UriInfo uri;

    @Context
    HttpHeaders headers;

    ProjectionResource(Caller caller, ProjectorReads reads, EventJson json, ProjectorConfig config, TokenCounter tokens,
                       OwnerRouting routing, StoreSignals signals, LiveRelay relay, ContextSource.ForkBases forkBases) {
        this.caller = caller;
        this.reads = reads;
        this.json = json;
        this.config = config;
        this.tokens = tokens;
        this.routing = routing;
        this.signals = signals;
        this.relay = relay;
        this.forkBases = forkBases;
    }

    @GET
    @Path("checkpoint")
    @Operation(summary = "The session's checkpoint, now or as of atSeq")
    @APIResponse(responseCode = "200", ref = "Checkpoint")
    @APIResponse(responseCode = "400", ref = "BadRequest")
    @APIResponse(responseCode = "404", ref = "NotFound")
    @Parameter(name = "atSeq", in = ParameterIn.QUERY, description = "as of this seq: the same fold stopped there",
            schema = @Schema(type = SchemaType.INTEGER, format = "int64"))
    @Parameter(name = "minSeq", in = ParameterIn.QUERY, description = MIN_SEQ,
            schema = @Schema(type = SchemaType.INTEGER, format = "int64"))
    public ObjectNode checkpoint(@PathParam("id") String sessionId, @QueryParam("atSeq") String atSeqParam,
                                 @QueryParam("minSeq") String minSeqParam) {
        Long atSeq = StrictInput.longParam(atSeqParam, "atSeq");
        Long minSeq = StrictInput.longParam(minSeqParam, "minSeq");
        Found found = found(sessionId, minSeq);
        SessionProjection current = found.current();
        SessionProjection at = at(found, atSeq);
        ObjectNode out = json.mapper().valueToTree(at);
        if (at != current) {
            out.putNull("position"); // offsets of a past seq are not kept; the fold is otherwise the same
        }
        return out;
    }

    @GET
    @Path("context")
    @Operation(summary = "The model context, in the OpenAI or Anthropic format, now or as of atSeq")
    @APIResponse(responseCode = "200", ref = "ModelContext")
    @APIResponse(responseCode = "400", ref = "BadRequest")
    @APIResponse(responseCode = "404", ref = "NotFound")
    @APIResponse(responseCode = "410", ref = "Gone")
    @Parameter(name = "format", in = ParameterIn.QUERY, description = "the provider's format (default openai)",
            schema = @Schema(type = SchemaType.STRING, enumeration = {"openai", "anthropic"}))
    @Parameter(name = "atSeq", in = ParameterIn.QUERY, description = "as of this seq: the same fold stopped there",
            schema = @Schema(type = SchemaType.INTEGER, format = "int64"))
    @Parameter(name = "maxTokens", in = ParameterIn.QUERY, description = "leave out the oldest events past the stable prefix until it fits",
            schema = @Schema(type = SchemaType.INTEGER, format = "int32"))
    @Parameter(name = "minSeq", in = ParameterIn.QUERY, description = MIN_SEQ,
            schema = @Schema(type = SchemaType.INTEGER, format = "int64"))
    public ObjectNode context(@PathParam("id") String sessionId, @QueryParam("format") String format, @QueryParam("atSeq") String atSeqParam,
                              @QueryParam("maxTokens") String maxTokensParam, @QueryParam("minSeq") String minSeqParam) {
        Long atSeq = StrictInput.longParam(atSeqParam, "atSeq");
        Integer maxTokens = StrictInput.intParam(maxTokensParam, "maxTokens");
        Long minSeq = StrictInput.longParam(minSeqParam, "minSeq");
        ContextFormat f = ContextFormat.fromWireName(format == null ? "openai" : format)
                .orElseThrow(() -> ApiException.badRequest("format", "must be openai or anthropic"));
        if (maxTokens != null && maxTokens < 1) {
            throw ApiException.badRequest("maxTokens", "must be at least 1");
        }
        Found found = found(sessionId, minSeq);
        SessionProjection state = at(found, atSeq);
        String tenantId = caller.principal().tenantId();
        SessionLog log = reads.log(found.copy());
        // read from a warm copy, the session's own events are in it; a fork's parent is asked of its owner as usual
        var events = new RoutedEvents((id, from, to) -> tenantEvents(log, tenantId, id, from, to),
                (id, from, to) -> found.copy().isPresent() && id.equals(sessionId) ? Optional.empty() : ownersPage(tenantId, id, from, to));
        ContextTrimmer.Trimmed trimmed = readingPages(
                () -> ContextTrimmer.fit(contextInput(events, state, forkBases), f, maxTokens, tokens.memo(tenantId)),
                () -> stillThere(found(sessionId, null).copy().isPresent(), () -> contextInput(events, state, forkBases)));
        ModelContext context = trimmed.context();
        int window = config.windowOf(state.modelId());
        int count = trimmed.tokens();
        ObjectNode out = json.mapper().createObjectNode();
        out.put("format", f.name().toLowerCase());
        if (context.system() != null) {
            out.put("system", context.system());
        }
        out.set("messages", json.mapper().valueToTree(context.messages()));
        out.put("stablePrefixSize", context.stablePrefixSize());
        out.put("tokens", count);
        out.put("tokenizer", TokenCounter.NAME);
        out.put("window", window);
        out.put("compactionAdvised", config.compactionAdvised(state.modelId(), count));
        out.put("atSeq", state.lastSeq());
        if (trimmed.droppedEvents() > 0) {
            out.put("droppedEvents", trimmed.droppedEvents());
        }
        return out;
    }

    /**
     * The original events a summary through {@code throughSeq} must be built from: every event,
     * never a previous summary, so compacting again does not summarize a summary.
     */
    @GET
    @Path("compaction-source")
    @Operation(summary = "The original events a summary through throughSeq must be made from")
    @APIResponse(responseCode = "200", ref = "CompactionSource")
    @APIResponse(responseCode = "400", ref = "BadRequest")
    @APIResponse(responseCode = "404", ref = "NotFound")
    @Parameter(name = "throughSeq", in = ParameterIn.QUERY, description = "the last seq the summary covers",
            schema = @Schema(type = SchemaType.INTEGER, format = "int64"))
    @Parameter(name = "fromSeq", in = ParameterIn.QUERY, description = "the first seq wanted (default 1)",
            schema = @Schema(type = SchemaType.INTEGER, format = "int64"))
    @Parameter(name = "limit", in = ParameterIn.QUERY, description = "the most events wanted",
            schema = @Schema(type = SchemaType.INTEGER, format = "int32"))
    public ObjectNode compactionSource(@PathParam("id") String sessionId, @QueryParam("throughSeq") String throughSeqParam,
                                       @QueryParam("fromSeq") String fromSeqParam, @QueryParam("limit") String limitParam) {
        Long throughSeq = StrictInput.longParam(throughSeqParam, "throughSeq");
        Long fromSeq = StrictInput.longParam(fromSeqParam, "fromSeq");
        Integer limit = StrictInput.intParam(limitParam, "limit");
        SessionProjection current = visible(sessionId);
        if (throughSeq == null || throughSeq < 1 || throughSeq > current.lastSeq()) {
            throw ApiException.badRequest("throughSeq", "must be from 1 to the session's last seq " + current.lastSeq());
        }
        long from = fromSeq == null ? 1 : fromSeq;
        int size = limit == null ? config.maxPageSize() : limit;
        if (from < 1) {
            throw ApiException.badRequest("fromSeq", "must be at least 1");
        }
        if (size < 1 || size > config.maxPageSize()) {
            throw ApiException.badRequest("limit", "must be from 1 to " + config.maxPageSize());
        }
        List<Event> events = reads.log().events(sessionId, from, Math.min(throughSeq, from + size - 1));
        ObjectNode out = json.mapper().createObjectNode();
        ArrayNode list = out.putArray("events");
        ArrayNode skipped = out.putArray("skippedSummaries");
        for (Event e : events) {
            if (e.payload() instanceof ContextCompacted) {
                skipped.add(e.seq());
            } else {
                list.add(json.write(e));
            }
        }
        out.put("throughSeq", throughSeq);
        long next = events.isEmpty() ? throughSeq + 1 : events.get(events.size() - 1).seq() + 1;
        if (next <= throughSeq) {
            out.put("nextFromSeq", next);
        }
        return out;
    }

    /**
     * A page of the session's events, with the contract of the session-service's {@code GET …/events}
     * ({@link EventPage}: {@code fromSeq}, {@code limit}, answering {@code {events, lastSeq, nextSeq}}), and an optional
     * upper bound {@code toSeq}. A fork's context reads its parent's events here when the parent's partition is on
     * another instance.
     */
    @GET
    @Path("events")
    @Operation(summary = "A page of the session's events from the projector's message store (clients read the session-service's); "
            + "with Accept: text/event-stream, the session-service's live subscription relayed: the events from fromSeq (or after "
            + "Last-Event-ID) and then live, each SSE event's id <seq>@<sessionStartedAt>, its name the type, its data the event")
    @APIResponse(responseCode = "200", description = "a page of events, or the live stream", content = {
            @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(ref = "EventPage")),
            @Content(mediaType = MediaType.SERVER_SENT_EVENTS, schema = @Schema(ref = "Event"))})
    @APIResponse(responseCode = "400", ref = "BadRequest")
    @APIResponse(responseCode = "404", ref = "NotFound")
    @APIResponse(responseCode = "503", ref = "Unavailable")
    @Parameter(name = "Last-Event-ID", in = ParameterIn.HEADER, schema = @Schema(type = SchemaType.STRING),
            description = StreamEventId.HEADER_DESCRIPTION)
    @Parameter(name = "fromSeq", in = ParameterIn.QUERY, description = "the first seq wanted (default 1)",
            schema = @Schema(type = SchemaType.INTEGER, format = "int64"))
    @Parameter(name = "limit", in = ParameterIn.QUERY, description = "the most events wanted",
            schema = @Schema(type = SchemaType.INTEGER, format = "int32"))
    @Parameter(name = "toSeq", in = ParameterIn.QUERY, description = "the last seq wanted",
            schema = @Schema(type = SchemaType.INTEGER, format = "int64"))
    public ObjectNode events(@PathParam("id") String sessionId, @QueryParam("fromSeq") String fromSeqParam,
                             @QueryParam("limit") String limitParam, @QueryParam("toSeq") String toSeqParam) {
        Long fromSeq = StrictInput.longParam(fromSeqParam, "fromSeq");
        Integer limit = StrictInput.intParam(limitParam, "limit");
        Long toSeq = StrictInput.longParam(toSeqParam, "toSeq");
        SessionProjection current = visible(sessionId); // sent here as the owner and not held: 503, never "not found" (OwnerRouting)
        EventPage.Query query = EventPage.Query.of(fromSeq, limit, config.maxPageSize());
        if (toSeq != null && toSeq < query.fromSeq()) {
            throw ApiException.badRequest("toSeq", "must be at least fromSeq");
        }
        long to = toSeq == null ? current.lastSeq() : Math.min(toSeq, current.lastSeq());
        List<Event> events = reads.log().events(sessionId, query.fromSeq(), query.lastWanted(to));
        return EventPage.of(events, query.fromSeq(), current.lastSeq()).toJson(json);
    }

    /**
     * The session-service's live subscription of the session, relayed ({@link LiveRelay}): catch-up from {@code fromSeq}
     * (or after {@code Last-Event-ID}), then live, each SSE event's {@code id} its seq and the session's start
     * ({@link StreamEventId}), as the session-service streams it.
     * The session explorer follows a running session through it without calling another origin.
     */
    @GET
    @Path("events")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @Blocking // the session-service is asked first whether the caller sees the session
    @Operation(hidden = true) // the same operation as events(), which documents both media types
    public Multi<OutboundSseEvent> live(@PathParam("id") String sessionId, @QueryParam("fromSeq") String fromSeqParam,
                                        @HeaderParam("Last-Event-ID") String lastEventId, @Context Sse sse) {
        if (!ClientIds.isValid(sessionId)) {
            throw ApiException.notFound("session");
        }
        Long fromSeq = StrictInput.longParam(fromSeqParam, "fromSeq");
        if (fromSeq != null && fromSeq < 1) {
            throw ApiException.badRequest("fromSeq", "must be at least 1");
        }
        StreamEventId last = StreamEventId.parse(lastEventId);
        long from = last != null ? last.nextSeq() : fromSeq == null ? 1 : fromSeq;
        return relay.open(sessionId, from, last == null ? null : last.sessionStartedAt(), headers.getHeaderString(HttpHeaders.AUTHORIZATION))
                .map(frame -> SseRelay.event(sse, frame));
    }

    @GET
    @Path("recovery")
    @Operation(summary = "The recovery report: identity, position, effects, authority and the next safe actions")
    @APIResponse(responseCode = "200", ref = "RecoveryReport")
    @APIResponse(responseCode = "400", ref = "BadRequest")
    @APIResponse(responseCode = "404", ref = "NotFound")
    @Parameter(name = "minSeq", in = ParameterIn.QUERY, description = MIN_SEQ,
            schema = @Schema(type = SchemaType.INTEGER, format = "int64"))
    public Response recovery(@PathParam("id") String sessionId, @QueryParam("minSeq") String minSeq) {
        // a Response, not the record: SmallRye would describe the record over the RecoveryReport of ProjectorApiDocument
        return Response.ok(RecoveryReport.of(found(sessionId, StrictInput.longParam(minSeq, "minSeq")).current())).build();
    }

    @GET
    @Path("calls/{callId}")
    @Operation(summary = "One tool call's record and the events of its story")
    @APIResponse(responseCode = "200", ref = "CallStory")
    @APIResponse(responseCode = "404", ref = "NotFound")
    public ObjectNode call(@PathParam("id") String sessionId, @PathParam("callId") String callId) {
        visible(sessionId);
        CallRecord call = reads.call(sessionId, callId).orElseThrow(() -> ApiException.notFound("call"));
        return story(call, reads.log(), json, () -> visible(sessionId));
    }

    /**
     * A call's record with the events of its story from {@code log}. When the log lacks one of them, the session has been
     * erased since the record was read (its tombstones go from seq 1, its call records with the first):
     * {@code stillThere} answers as a read begun after the erasure would (404); if it finds the session, its log lacks
     * events it must hold, and the read fails.
     */
    static ObjectNode story(CallRecord call, SessionLog log, EventJson json, Runnable stillThere) {
        ObjectNode out = json.mapper().valueToTree(call);
        out.set("requestedBy", json.write(storyEvent(log, call.sessionId(), call.requestSeq(), stillThere)));
        if (call.authorizedSeq() != null) {
            out.set("authorizedBy", json.write(storyEvent(log, call.sessionId(), call.authorizedSeq(), stillThere)));
        }
        if (call.resultSeq() != null) {
            out.set("result", json.write(storyEvent(log, call.sessionId(), call.resultSeq(), stillThere)));
        }
        return out;
    }

    private static Event storyEvent(SessionLog log, String sessionId, long seq, Runnable stillThere) {
        Event event = log.event(sessionId, seq);
        if (event == null) {
            stillThere.run();
            throw new LazyEvents.MissingEvents("the log of session " + sessionId + " does not hold seq " + seq + " of a call's story");
        }
        return event;
    }

    // ---------------------------------------------------------------------------------------------

    /** The session's checkpoint, read here if this instance holds its partition, else the request goes to the one that does. */
    private SessionProjection visible(String sessionId) {
        requireId(sessionId);
        routing.serveLocallyOrForward(ProjectorStores.CHECKPOINTS, sessionId, uri, headers);
        return reads.checkpoint(caller.principal().tenantId(), sessionId).orElseThrow(() -> ApiException.notFound("session"));
    }

    /** What the context of the session whose checkpoint is {@code state} is rendered from; 410 if it is a fork whose parent is gone. */
    static ContextInput contextInput(ContextSource.Events events, SessionProjection state, ContextSource.ForkBases forkBases) {
        return ContextSource.at(events, state, state.lastSeq(), forkBases)
                .orElseThrow(() -> new ApiException(410, "parent_gone", "the session is a fork of a session that no longer exists"));
    }

    /**
     * Runs {@code read}, which reads a session's events a page at a time ({@link LazyEvents}). When a page lacks a seq,
     * the session may have been erased since the read began: {@code stillThere} then answers as a read begun after the
     * erasure would (404, or 503 from a warm copy), and if it finds the session, its log lacks events it must hold and
     * the read fails (500).
     */
    static <T> T readingPages(Supplier<T> read, Runnable stillThere) {
        try {
            return read.get();
        } catch (LazyEvents.MissingEvents e) {
            stillThere.run();
            throw e;
        }
    }

    /**
     * What a context read whose events lack a seq answers once the session has been found again (erased meanwhile: 404,
     * or 503 from a copy that no longer has it): 410 if {@code contextAgain} finds a fork's parent gone; 503 if the read
     * is a warm copy's, which restores a partition's events apart from its checkpoints and may not hold them all yet;
     * otherwise the read fails, its log lacking events it must hold.
     */
    static void stillThere(boolean fromCopy, Runnable contextAgain) {
        try {
            contextAgain.run();
        } catch (LazyEvents.MissingEvents e) {
            if (!fromCopy) {
                throw e;
            }
        }
        if (fromCopy) {
            throw ApiException.unavailable("this instance's copy of the session's partition has not restored all of its events yet;"
                    + " try again shortly", 1);
        }
    }

    /** A session's checkpoint as a read found it, and this instance's warm copy it came from, if it did. */
    private record Found(SessionProjection current, OptionalInt copy) {}

    /**
     * The session's checkpoint for a read of it, its context or its recovery report: read here if this instance holds
     * its partition, else the request goes to the one that does; while the partition changes hands (its owner killed a
     * moment ago, or this instance taking it over) from this instance's warm copy of it, if it keeps one
     * ({@link OwnerRouting#serveLocallyOrForwardOrCopy}), where a session it does not have answers 503, not 404. With
     * {@code minSeq}, waits (up to 5 s, then 503) until the
     * projection has folded at least that seq: a client reads its own writes made through the session-service, which
     * the projection follows a moment later. The fold wakes the wait ({@link StoreSignals}); nothing polls.
     */
    private Found found(String sessionId, Long minSeq) {
        requireId(sessionId);
        OptionalInt copy = routing.serveLocallyOrForwardOrCopy(ProjectorStores.CHECKPOINTS, sessionId, uri, headers,
                ProjectorReads.SESSION_STORES);
        String tenantId = caller.principal().tenantId();
        if (minSeq == null) {
            return new Found(reads.checkpoint(tenantId, sessionId, copy).orElseThrow(() -> copy.isPresent()
                    // a copy may lag behind the session's creation: never a "not found" for something that may exist
                    ? ApiException.unavailable("the session's partition is changing hands and this instance's copy does not have it; try again shortly", 1)
                    : ApiException.notFound("session")), copy);
        }
        try {
            // the fold signals each session whose checkpoint it wrote
            return new Found(signals.await(ProjectorStores.CHECKPOINTS, sessionId, CATCH_UP,
                    () -> reads.checkpoint(tenantId, sessionId, copy).filter(found -> found.lastSeq() >= minSeq)).orElseThrow(
                            () -> ApiException.unavailable("the projection has not reached seq " + minSeq + " yet; try again shortly", 1)),
                    copy);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted", 1);
        }
    }

    private static void requireId(String sessionId) {
        if (!ClientIds.isValid(sessionId)) {
            throw ApiException.notFound("session");
        }
    }

    /** The checkpoint as of {@code atSeq}: the same fold, stopped there. */
    private SessionProjection at(Found found, Long atSeq) {
        SessionProjection current = found.current();
        return at(current, atSeq, reads.log(found.copy()),
                () -> stillThere(found(current.sessionId(), null).copy().isPresent(), () -> { }));
    }

    /**
     * The checkpoint as of {@code atSeq} of the session whose checkpoint is {@code current}, folded from {@code log}
     * through that seq. When the log lacks one of those events, {@code stillThere} answers as for a context read
     * ({@link #readingPages}): 404 for a session erased meanwhile, 503 from a warm copy that has not restored them all;
     * never the fold of the events it has, which would be another seq's checkpoint.
     */
    static SessionProjection at(SessionProjection current, Long atSeq, SessionLog log, Runnable stillThere) {
        if (atSeq == null || atSeq == current.lastSeq()) {
            return current;
        }
        if (atSeq < 1 || atSeq > current.lastSeq()) {
            throw ApiException.badRequest("atSeq", "must be from 1 to the session's last seq " + current.lastSeq());
        }
        return readingPages(() -> log.foldThrough(current.sessionId(), atSeq), stillThere);
    }

    /**
     * A page of events of a session whose partition another instance holds, read there with the caller's credentials
     * (so only the caller's tenant's); empty Optional if this instance holds it. The owner's 404 (missing, erased,
     * another tenant's) reads as no events; any other answer but 200 is a 503 here, never a "gone".
     */
    private Optional<EventPage> ownersPage(String tenantId, String sessionId, long from, long to) {
        if (!ClientIds.isValid(sessionId)) {
            return Optional.of(EventPage.none(from));
        }
        String path = "/v1/sessions/" + sessionId + "/events?fromSeq=" + from + "&toSeq=" + to + "&limit=" + config.maxPageSize();
        return routing.fetchFromOwner(ProjectorStores.CHECKPOINTS, sessionId, path, headers).map(answer -> {
            if (answer.statusCode() == 404) {
                return EventPage.none(from);
            }
            if (answer.statusCode() != 200) {
                long retryAfter = answer.headers().firstValueAsLong("retry-after").orElse(1);
                throw ApiException.unavailable("the instance holding a session this read needs answered " + answer.statusCode()
                        + "; try again shortly", (int) retryAfter);
            }
            try {
                return EventPage.fromJson(json, answer.body(), from, tenantId);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** Events of a session of {@code tenantId} only: a fork never reads another tenant's parent. */
    private static List<Event> tenantEvents(SessionLog log, String tenantId, String sessionId, long from, long to) {
        Event first = log.event(sessionId, 1);
        if (first == null || !first.tenantId().equals(tenantId)) {
            return List.of();
        }
        return log.events(sessionId, from, to);
    }
}
