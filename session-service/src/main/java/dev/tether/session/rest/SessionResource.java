package dev.tether.session.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.core.auth.TetherPrincipal;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.InvalidEventException;
import dev.tether.core.event.ProposedEvent;
import dev.tether.core.event.SessionForked;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.ToolMode;
import dev.tether.core.id.ClientIds;
import dev.tether.core.id.DerivedIds;
import dev.tether.kit.json.EventJson;
import dev.tether.kit.kafka.CommandVerdict;
import dev.tether.kit.service.TetherConfig;
import dev.tether.kit.service.auth.Caller;
import dev.tether.kit.service.rest.ApiException;
import dev.tether.kit.service.rest.EventPage;
import dev.tether.kit.service.rest.OwnerRouting;
import dev.tether.kit.service.rest.SseRelay;
import dev.tether.kit.service.rest.StreamEventId;
import dev.tether.kit.service.rest.StrictInput;
import dev.tether.session.config.SessionServiceConfig;
import dev.tether.session.domain.Command;
import dev.tether.session.domain.CommandEnvelope;
import dev.tether.session.domain.HarnessVersion;
import dev.tether.session.domain.Sequencer;
import dev.tether.session.domain.SessionHead;
import dev.tether.session.kafka.CommandGateway;
import dev.tether.session.kafka.SessionStores;
import dev.tether.session.kafka.StoreNames;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Multi;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
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
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;

/**
 * The session API for agent clients (docs/ARCHITECTURE.md §4, issue 3). Every call is authenticated and
 * scoped to the caller's tenant; another tenant's session answers exactly like a missing one.
 * Writes become commands the sequencer decides; the response carries its verdict.
 */
@Path("/v1/sessions")
@Produces(MediaType.APPLICATION_JSON)
public class SessionResource {

    private final Caller caller;
    private final EventJson json;
    private final Ingress ingress;
    private final CommandGateway gateway;
    private final SessionStores stores;
    private final HarnessAssignment assignment;
    private final SessionServiceConfig config;
    private final LiveEvents live;
    private final OwnerRouting routing;
    private final int partitions;

    SessionResource(Caller caller, EventJson json, Ingress ingress, CommandGateway gateway, SessionStores stores,
                    HarnessAssignment assignment, SessionServiceConfig config, LiveEvents live, OwnerRouting routing,
                    TetherConfig tether) {
        this.caller = caller;
        this.json = json;
        this.ingress = ingress;
        this.gateway = gateway;
        this.stores = stores;
        this.assignment = assignment;
        this.config = config;
        this.live = live;
        this.routing = routing;
        this.partitions = tether.layout().partitions();
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed({"agent", "admin"})
    @Operation(summary = "Create a session: its log starts with session_started")
    @APIResponse(responseCode = "201", ref = "SessionCreated")
    @APIResponse(responseCode = "400", ref = "BadRequest")
    @APIResponse(responseCode = "404", description = "404: the sessionId the create names (or the one derived from its eventId) "
            + "is held by a session of another tenant (not_found). Session ids are one namespace across tenants, so the id is "
            + "taken; the answer is the one a missing session gets, so as not to tell that another tenant has it. Choose another "
            + "sessionId, or leave it out.",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(ref = "Error")))
    @APIResponse(responseCode = "409", ref = "Conflict")
    @APIResponse(responseCode = "413", ref = "TooLarge")
    @APIResponse(responseCode = "422", ref = "Unprocessable")
    public Response create(
            @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(ref = "CreateSession")))
            byte[] body) {
        TetherPrincipal principal = caller.principal();
        var read = read(json, body, Requests.CreateSession.class);
        var request = read.request();
        int redactions = read.redactions();
        String sessionId = Requests.sessionIdFor(request.sessionId(), principal.tenantId(), "create", request.eventId());
        HarnessAssignment.Pin pin = assignment.pin(principal.tenantId(), sessionId, request.harnessVersion(), request.modelId());
        var started = new SessionStarted(request.objective(), request.systemPrompt(), pin.modelId(), pin.version(), request.toolMode(),
                request.constraints(), request.tokenBudget(), null, request.harnessTools());
        CommandVerdict.Accepted reply = append(principal, sessionId, List.of(new Proposal(eventIdOr(request.eventId()), started)), null, null);
        ObjectNode out = json.mapper().createObjectNode();
        out.put("sessionId", sessionId);
        out.put("seq", reply.appended().get(0).seq());
        putPin(out, reply, pin.version(), pin.modelId());
        out.put("redactions", redactions);
        putStart(out, reply);
        return Response.status(Response.Status.CREATED).entity(out).build();
    }

    @POST
    @Path("{id}/events")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed({"agent", "approver", "admin"})
    @Operation(summary = "Append events, all or none, checked against expectedSeq and the worker's epoch")
    @APIResponse(responseCode = "200", ref = "Appended")
    @APIResponse(responseCode = "400", ref = "BadRequest")
    @APIResponse(responseCode = "404", ref = "NotFound")
    @APIResponse(responseCode = "409", ref = "Conflict")
    @APIResponse(responseCode = "413", ref = "TooLarge")
    @APIResponse(responseCode = "422", ref = "Unprocessable")
    public ObjectNode append(@PathParam("id") String sessionId,
            @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(ref = "AppendEvents")))
            byte[] body) {
        TetherPrincipal principal = caller.principal();
        requireSessionId(sessionId);
        var read = read(json, body, Requests.AppendEvents.class);
        var request = read.request();
        int redactions = read.redactions();
        var proposals = new ArrayList<Proposal>();
        for (int i = 0; i < request.events().size(); i++) {
            try {
                EventJson.Proposal p = json.readProposal(request.events().get(i));
                Requests.id(p.eventId(), "eventId");
                proposals.add(new Proposal(p.eventId(), p.payload()));
            } catch (InvalidEventException e) {
                throw e.under("events[" + i + "].");
            }
            startsNoSession(proposals.get(i).payload(), "events[" + i + "].type");
        }
        CommandVerdict.Accepted reply = append(principal, sessionId, proposals, request.expectedSeq(), request.epoch(),
                request.sessionStartedAt());
        ObjectNode out = json.mapper().createObjectNode();
        ArrayNode appended = out.putArray("appended");
        reply.appended().forEach(a -> appended.addObject().put("eventId", a.eventId()).put("seq", a.seq())
                .put("duplicate", a.duplicate()));
        out.put("lastSeq", reply.lastSeq());
        out.put("redactions", redactions);
        return out;
    }

    @GET
    @Path("{id}/events")
    @RolesAllowed({"agent", "approver", "operator", "admin"})
    @Parameter(name = "Last-Event-ID", in = ParameterIn.HEADER, schema = @Schema(type = SchemaType.STRING),
            description = StreamEventId.HEADER_DESCRIPTION)
    @Operation(summary = "A page of the session's events from fromSeq; with Accept: text/event-stream, the events from fromSeq "
            + "(or after Last-Event-ID) and then live, each SSE event's id <seq>@<sessionStartedAt>, its name the type, its data "
            + "the event")
    @APIResponse(responseCode = "200", description = "a page of events, or the live stream", content = {
            @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(ref = "EventPage")),
            @Content(mediaType = MediaType.SERVER_SENT_EVENTS, schema = @Schema(ref = "Event"))})
    @APIResponse(responseCode = "400", ref = "BadRequest")
    @APIResponse(responseCode = "404", ref = "NotFound")
    @Parameter(name = "fromSeq", in = ParameterIn.QUERY, description = "the first seq wanted (default 1)",
            schema = @Schema(type = SchemaType.INTEGER, format = "int64"))
    @Parameter(name = "limit", in = ParameterIn.QUERY, description = "the most events wanted (default 100)",
            schema = @Schema(type = SchemaType.INTEGER, format = "int32"))
    @Parameter(name = StreamEventId.START_PARAM, in = ParameterIn.QUERY, description = StreamEventId.START_PARAM_DESCRIPTION,
            schema = @Schema(type = SchemaType.STRING, format = "date-time"))
    public ObjectNode page(@PathParam("id") String sessionId, @QueryParam("fromSeq") String fromSeqParam, @QueryParam("limit") String limitParam,
                           @QueryParam(StreamEventId.START_PARAM) String startedAtParam, @Context UriInfo uri, @Context HttpHeaders headers) {
        requireSessionId(sessionId);
        Long fromSeq = StrictInput.longParam(fromSeqParam, "fromSeq");
        Integer limit = StrictInput.intParam(limitParam, "limit");
        Instant startedAt = StrictInput.instantParam(startedAtParam, StreamEventId.START_PARAM);
        routing.serveLocallyOrForward(StoreNames.HEADS, sessionId, uri, headers);
        SessionHead head = visibleHead(sessionId);
        StreamEventId.requireSameSession(startedAt, head.startedAt());
        EventPage.Query query = EventPage.Query.of(fromSeq, limit, config.maxPageSize());
        List<Event> events = stores.events(head, query.fromSeq(), query.limit(), head.lastSeq());
        return EventPage.of(events, query.fromSeq(), head.lastSeq()).toJson(json);
    }

    /**
     * Catch-up from {@code fromSeq} (or after {@code Last-Event-ID}), then live; of the session that started at
     * {@code sessionStartedAt}, when the request names one ({@link StreamEventId#ofRequest}). Each SSE event's
     * {@code id} is its seq and the session's start ({@link StreamEventId}), so a client that reconnects with
     * {@code Last-Event-ID} misses nothing and sees nothing twice, and one whose session was erased meanwhile gets 404
     * rather than the events of a session made under the id since.
     */
    @GET
    @Path("{id}/events")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @RolesAllowed({"agent", "approver", "operator", "admin"})
    @Operation(hidden = true) // the same operation as page(), which documents both media types
    @Blocking // the instance holding the session, when it is another one, is asked first whether the caller sees it
    public Multi<OutboundSseEvent> stream(@PathParam("id") String sessionId, @QueryParam("fromSeq") String fromSeqParam,
                                          @QueryParam(StreamEventId.START_PARAM) String startedAtParam,
                                          @HeaderParam("Last-Event-ID") String lastEventId, @Context Sse sse,
                                          @Context UriInfo uri, @Context HttpHeaders headers) {
        String tenantId = caller.principal().tenantId();
        requireSessionId(sessionId);
        StreamEventId after = StreamEventId.ofRequest(lastEventId, StrictInput.longParam(fromSeqParam, "fromSeq"), startedAtParam);
        String check = "/v1/sessions/" + sessionId + after.sameSessionQuery();
        var relayed = routing.streamFromOwner(StoreNames.HEADS, sessionId, check, uri, headers);
        if (relayed.isPresent()) {
            return relayed.get().map(frame -> SseRelay.event(sse, frame));
        }
        SessionHead head = visibleHead(sessionId);
        StreamEventId.requireSameSession(after.sessionStartedAt(), head.startedAt());
        return live.stream(tenantId, head, after.nextSeq()).map(e -> sse.newEventBuilder().id(StreamEventId.of(e.seq(), head.startedAt()))
                .name(e.type()).data(json.write(e).toString()).build());
    }

    @GET
    @RolesAllowed({"agent", "approver", "operator", "admin"})
    @Operation(summary = "A page of the caller's tenant's sessions, open, closed or all, in id order; nextAfter, when "
            + "present, is where the next page starts")
    @APIResponse(responseCode = "200", ref = "Sessions")
    @APIResponse(responseCode = "400", ref = "BadRequest")
    @Parameter(name = "status", in = ParameterIn.QUERY, description = "open or closed sessions only",
            schema = @Schema(type = SchemaType.STRING, enumeration = {"open", "closed"}))
    @Parameter(name = "after", in = ParameterIn.QUERY, description = "the sessions whose ids come after this one (the nextAfter "
            + "of the page before); from the first by default", schema = @Schema(type = SchemaType.STRING))
    @Parameter(name = "limit", in = ParameterIn.QUERY, description = "the most sessions wanted (default 100)",
            schema = @Schema(type = SchemaType.INTEGER, format = "int32"))
    public ObjectNode list(@QueryParam("status") String status, @QueryParam("after") String after, @QueryParam("limit") String limitParam,
                           @Context UriInfo uri, @Context HttpHeaders headers) {
        if (status != null && !List.of("open", "closed").contains(status)) {
            throw ApiException.badRequest("status", "must be open or closed");
        }
        if (after != null && !ClientIds.isValid(after)) {
            throw ApiException.badRequest("after", "must be a session id (the nextAfter of the page before)");
        }
        Integer limit = StrictInput.intParam(limitParam, "limit");
        int size = limit == null ? EventPage.DEFAULT_LIMIT : limit;
        if (size < 1 || size > config.maxPageSize()) {
            throw ApiException.badRequest("limit", "must be from 1 to " + config.maxPageSize());
        }
        var local = new ArrayList<JsonNode>();
        stores.sessions(caller.principal().tenantId(), status, after, size + 1).forEach(s -> local.add(json.mapper().valueToTree(s)));
        return routing.page(StoreNames.HEADS, partitions, uri, headers, json.mapper(), "sessions", local,
                Comparator.comparing(s -> s.path("sessionId").asText()), size, s -> s.path("sessionId").asText());
    }

    @GET
    @Path("{id}")
    @RolesAllowed({"agent", "approver", "operator", "admin"})
    @Operation(summary = "One session")
    @APIResponse(responseCode = "200", ref = "SessionSummary")
    @APIResponse(responseCode = "400", ref = "BadRequest")
    @APIResponse(responseCode = "404", ref = "NotFound")
    @Parameter(name = StreamEventId.START_PARAM, in = ParameterIn.QUERY, description = "the session only if it is the one that "
            + "started then (404 otherwise: that one was erased, and this is another made under its id since)",
            schema = @Schema(type = SchemaType.STRING, format = "date-time"))
    public ObjectNode get(@PathParam("id") String sessionId, @QueryParam(StreamEventId.START_PARAM) String startedAtParam,
                          @Context UriInfo uri, @Context HttpHeaders headers) {
        requireSessionId(sessionId);
        Instant startedAt = StrictInput.instantParam(startedAtParam, StreamEventId.START_PARAM);
        routing.serveLocallyOrForward(StoreNames.HEADS, sessionId, uri, headers);
        SessionHead head = visibleHead(sessionId);
        StreamEventId.requireSameSession(startedAt, head.startedAt());
        return json.mapper().valueToTree(dev.tether.session.domain.SessionSummary.of(head));
    }

    @POST
    @Path("{id}/claim")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed({"agent", "admin"})
    @Operation(summary = "Claim the session for a worker: a new epoch fences the previous holder")
    @APIResponse(responseCode = "200", ref = "Claimed")
    @APIResponse(responseCode = "400", ref = "BadRequest")
    @APIResponse(responseCode = "404", ref = "NotFound")
    @APIResponse(responseCode = "409", ref = "Conflict")
    @APIResponse(responseCode = "422", ref = "Unprocessable")
    public ObjectNode claim(@PathParam("id") String sessionId,
            @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(ref = "Claim")))
            byte[] body) {
        TetherPrincipal principal = caller.principal();
        requireSessionId(sessionId);
        var request = read(json, body, Requests.Claim.class).request(); // a worker's id is stored and shown like any text
        var command = new Command.ClaimSession(request.workerId(), request.harnessVersion(), Boolean.TRUE.equals(request.rollout()));
        CommandVerdict.Accepted reply = send(new CommandEnvelope(commandIdFor(principal.tenantId(), sessionId, request.requestId()), sessionId, principal.tenantId(), principal,
                Instant.now(), command));
        ObjectNode out = json.mapper().createObjectNode();
        out.put("epoch", reply.epoch());
        out.put("resumed", reply.resumeReason().isPresent());
        if (reply.resumeReason().isEmpty()) {
            out.putNull("reason");
        } else {
            out.put("reason", reply.resumeReason().get());
        }
        out.put("lastSeq", reply.lastSeq());
        putStart(out, reply);
        return out;
    }

    @POST
    @Path("{id}/migrate")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed({"operator", "admin"})
    @Operation(summary = "Move the session to another harness version (session_migrated)")
    @APIResponse(responseCode = "200", ref = "Migrated")
    @APIResponse(responseCode = "400", ref = "BadRequest")
    @APIResponse(responseCode = "404", ref = "NotFound")
    @APIResponse(responseCode = "409", ref = "Conflict")
    @APIResponse(responseCode = "422", ref = "Unprocessable")
    public ObjectNode migrate(@PathParam("id") String sessionId,
            @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(ref = "Migrate")))
            byte[] body) {
        TetherPrincipal principal = caller.principal();
        requireSessionId(sessionId);
        var request = read(json, body, Requests.Migrate.class).request();
        HarnessVersion target = assignment.versions(principal.tenantId()).get(request.toVersion());
        if (target != null && target.state() == HarnessVersion.State.RETIRED) {
            throw new ApiException(422, "version_retired", "harness version " + request.toVersion() + " is RETIRED: no worker runs"
                    + " it, and a session moved there would wait for none; make it ACTIVE or DRAINING first").with("field", "toVersion");
        }
        CommandVerdict.Accepted reply = send(new CommandEnvelope(commandIdFor(principal.tenantId(), sessionId, request.requestId()), sessionId, principal.tenantId(), principal,
                Instant.now(), new Command.MigrateSession(request.toVersion())));
        ObjectNode out = json.mapper().createObjectNode();
        out.put("harnessVersion", request.toVersion());
        out.put("lastSeq", reply.lastSeq());
        return out;
    }

    @DELETE
    @Path("{id}")
    @RolesAllowed({"agent", "admin"})
    @Operation(summary = "Erase the session: a tombstone for each of its events and its checkpoint")
    @APIResponse(responseCode = "200", ref = "Erased")
    @APIResponse(responseCode = "400", ref = "BadRequest")
    @APIResponse(responseCode = "404", ref = "NotFound")
    @APIResponse(responseCode = "409", ref = "Conflict")
    @APIResponse(responseCode = "422", ref = "Unprocessable")
    @Parameter(name = "epoch", in = ParameterIn.QUERY, description = "a writer's erasure: only while this is the session's epoch (409"
            + " stale_epoch once another worker claimed it, and nothing is erased)", schema = @Schema(type = SchemaType.INTEGER, format = "int64"))
    @Parameter(name = StreamEventId.START_PARAM, in = ParameterIn.QUERY, description = "only the session that started then (404"
            + " otherwise: that one was erased, and this is another made under its id since)",
            schema = @Schema(type = SchemaType.STRING, format = "date-time"))
    public ObjectNode erase(@PathParam("id") String sessionId, @QueryParam("epoch") String epochParam,
                            @QueryParam(StreamEventId.START_PARAM) String startedAtParam) {
        TetherPrincipal principal = caller.principal();
        requireSessionId(sessionId);
        Long epoch = StrictInput.longParam(epochParam, "epoch");
        if (epoch != null && epoch < 0) {
            throw ApiException.badRequest("epoch", "must not be negative");
        }
        Instant startedAt = StrictInput.instantParam(startedAtParam, StreamEventId.START_PARAM);
        CommandVerdict.Accepted reply = send(new CommandEnvelope(UUID.randomUUID().toString(), sessionId, principal.tenantId(), principal,
                Instant.now(), new Command.EraseSession("requested by " + principal.id(), epoch, startedAt)));
        ObjectNode out = json.mapper().createObjectNode();
        out.put("erased", sessionId);
        out.put("events", reply.lastSeq());
        return out;
    }

    @POST
    @Path("{id}/subagents")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed({"agent", "admin"})
    @Operation(summary = "Create a subagent: a session of its own, no wider and with no larger budget than its parent")
    @APIResponse(responseCode = "201", ref = "SubagentCreated")
    @APIResponse(responseCode = "400", ref = "BadRequest")
    @APIResponse(responseCode = "404", ref = "NotFound")
    @APIResponse(responseCode = "409", ref = "Conflict")
    @APIResponse(responseCode = "413", ref = "TooLarge")
    @APIResponse(responseCode = "422", ref = "Unprocessable")
    public Response subagent(@PathParam("id") String parentId,
            @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(ref = "CreateSubagent")))
            byte[] body, @Context UriInfo uri, @Context HttpHeaders headers) {
        requireSessionId(parentId);
        routing.serveLocallyOrForward(StoreNames.HEADS, parentId, uri, headers, body); // the parent's head is read where it is kept
        TetherPrincipal principal = caller.principal();
        SessionHead parent = visibleHead(parentId);
        var read = read(json, body, Requests.Subagent.class);
        var request = read.request();
        int redactions = read.redactions();
        if (parent.closed()) {
            throw new ApiException(422, "session_closed", "the parent session is closed");
        }
        if (parent.toolMode() == ToolMode.READ_ONLY && request.toolMode() == ToolMode.WRITE) {
            throw new ApiException(422, "illegal_event", "a subagent may not have more tool access than its parent").with("field", "toolMode");
        }
        Long budget = request.tokenBudget();
        if (parent.tokenBudget() != null) {
            long remaining = parent.tokenBudget() - parent.used().total();
            if (budget == null || budget > remaining) {
                throw new ApiException(422, "budget_exceeded", "the parent has " + remaining
                        + " tokens left; a subagent's tokenBudget must be set and no larger").with("field", "tokenBudget");
            }
        }
        String childId = Requests.sessionIdFor(request.sessionId(), principal.tenantId(), "subagent", request.eventId());
        var started = new SessionStarted(request.objective(), request.systemPrompt(), parent.modelId(), parent.harnessVersion(),
                request.toolMode(), request.constraints(), budget, parentId, request.harnessTools(), parent.startedAt());
        CommandVerdict.Accepted reply = append(principal, childId, List.of(new Proposal(eventIdOr(request.eventId()), started)), null, null);
        ObjectNode out = json.mapper().createObjectNode();
        out.put("sessionId", childId);
        out.put("parentSessionId", parentId);
        out.put("seq", reply.appended().get(0).seq());
        putPin(out, reply, parent.harnessVersion(), parent.modelId());
        out.put("toolMode", request.toolMode().name());
        out.put("redactions", redactions);
        putStart(out, reply);
        return Response.status(Response.Status.CREATED).entity(out).build();
    }

    /**
     * A new session whose log starts with {@code session_forked}: pinned to what the parent was
     * pinned to at {@code atSeq}; its context is the parent's at that seq followed by its own events.
     */
    @POST
    @Path("{id}/fork")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed({"agent", "admin"})
    @Operation(summary = "Fork the session at a seq: a new session starting with session_forked")
    @APIResponse(responseCode = "201", ref = "Forked")
    @APIResponse(responseCode = "400", ref = "BadRequest")
    @APIResponse(responseCode = "404", ref = "NotFound")
    @APIResponse(responseCode = "409", ref = "Conflict")
    @APIResponse(responseCode = "413", ref = "TooLarge")
    @APIResponse(responseCode = "422", ref = "Unprocessable")
    public Response fork(@PathParam("id") String parentId,
            @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(ref = "Fork")))
            byte[] body, @Context UriInfo uri, @Context HttpHeaders headers) {
        requireSessionId(parentId);
        routing.serveLocallyOrForward(StoreNames.HEADS, parentId, uri, headers, body); // the parent's log is read where it is kept
        TetherPrincipal principal = caller.principal();
        SessionHead parent = visibleHead(parentId);
        var request = read(json, body, Requests.Fork.class).request();
        if (request.atSeq() > parent.lastSeq()) {
            throw ApiException.badRequest("atSeq", "must be from 1 to the parent's last seq " + parent.lastSeq());
        }
        ForkPoint point = forkPoint(request.atSeq(), (from, limit) -> stores.events(parent, from, limit, request.atSeq()));
        SessionHead atFork = point.head();
        var first = point.first();
        Event atForkPoint = point.at(); // which session of this id is forked: an id is free again after an erasure
        Long budget = forkBudget(atFork, request.atSeq(), request.tokenBudget());
        var forked = first instanceof SessionStarted s
                ? new SessionForked(parentId, request.atSeq(), s.objective(), s.systemPrompt(), atFork.modelId(), atFork.harnessVersion(),
                        atFork.toolMode(), s.constraints(), atFork.harnessTools(), atForkPoint.eventId(), atForkPoint.occurredAt(), budget)
                : forkOfFork(parentId, request.atSeq(), (SessionForked) first, atFork, atForkPoint, budget);
        String childId = Requests.sessionIdFor(request.sessionId(), principal.tenantId(), "fork", request.eventId());
        CommandVerdict.Accepted reply = append(principal, childId, List.of(new Proposal(eventIdOr(request.eventId()), forked)), null, null);
        ObjectNode out = json.mapper().createObjectNode();
        out.put("sessionId", childId);
        out.put("parentSessionId", parentId);
        out.put("atSeq", request.atSeq());
        out.put("seq", reply.appended().get(0).seq());
        putPin(out, reply, atFork.harnessVersion(), atFork.modelId());
        if (budget == null) {
            out.putNull("tokenBudget");
        } else {
            out.put("tokenBudget", budget);
        }
        putStart(out, reply);
        return Response.status(Response.Status.CREATED).entity(out).build();
    }

    /** The most events a fork holds at once while it folds its parent's log. */
    static final int FORK_PAGE = 500;

    /** A parent's log through a fork's seq: its first event's payload, its head there, and its event there. */
    record ForkPoint(EventPayload first, SessionHead head, Event at) {}

    /** Reads a session's events: up to {@code limit} from {@code fromSeq} on, every one there is up to the fork's seq. */
    interface EventPages {
        List<Event> read(long fromSeq, int limit);
    }

    /**
     * The parent's log folded through {@code atSeq}, read {@value #FORK_PAGE} events at a time: a fork at the end of a
     * long session holds one page of it, not the whole log.
     */
    static ForkPoint forkPoint(long atSeq, EventPages pages) {
        EventPayload first = null;
        SessionHead head = null;
        Event at = null;
        for (long from = 1; from <= atSeq; ) {
            List<Event> page = pages.read(from, (int) Math.min(FORK_PAGE, atSeq - from + 1));
            for (Event e : page) {
                if (e.seq() != from) {
                    throw ApiException.unavailable("the event store is catching up with the log; try again shortly", 1);
                }
                first = first == null ? e.payload() : first;
                head = Sequencer.evolve(head, e);
                at = e;
                from++;
                if (from > atSeq) {
                    break;
                }
            }
            if (page.isEmpty()) {
                throw ApiException.unavailable("the event store is catching up with the log; try again shortly", 1);
            }
        }
        return new ForkPoint(first, head, at);
    }

    private static SessionForked forkOfFork(String parentId, long atSeq, SessionForked parentStart, SessionHead atFork,
                                            Event atForkPoint, Long budget) {
        return new SessionForked(parentId, atSeq, parentStart.objective(), parentStart.systemPrompt(), atFork.modelId(),
                atFork.harnessVersion(), atFork.toolMode(), parentStart.constraints(), atFork.harnessTools(), atForkPoint.eventId(),
                atForkPoint.occurredAt(), budget);
    }

    /**
     * A fork's token budget: what its parent had left at the fork point, or {@code asked} if that is less; {@code asked}
     * (or none) for a parent without a budget. A fork continues the parent's work, so it is bounded as the parent was
     * there; like a subagent's, its budget is not taken from the parent's.
     */
    static Long forkBudget(SessionHead atFork, long atSeq, Long asked) {
        if (atFork.tokenBudget() == null) {
            return asked;
        }
        long used = atFork.used().total();
        long left = atFork.tokenBudget() - used;
        if (left < 1) {
            throw new ApiException(422, "budget_exceeded", "the parent had used " + used + " of its " + atFork.tokenBudget()
                    + " tokens at seq " + atSeq + ": a fork there could use none").with("field", "atSeq");
        }
        if (asked != null && asked > left) {
            throw new ApiException(422, "budget_exceeded", "the parent had " + left + " tokens left at seq " + atSeq
                    + "; a fork's tokenBudget must be no larger").with("field", "tokenBudget");
        }
        return asked == null ? left : asked;
    }

    // ---------------------------------------------------------------------------------------------

    private record Proposal(String eventId, EventPayload payload) {}

    private CommandVerdict.Accepted append(TetherPrincipal principal, String sessionId, List<Proposal> proposals, Long expectedSeq, Long epoch) {
        return append(principal, sessionId, proposals, expectedSeq, epoch, null);
    }

    private CommandVerdict.Accepted append(TetherPrincipal principal, String sessionId, List<Proposal> proposals, Long expectedSeq, Long epoch,
                                           Instant sessionStartedAt) {
        var events = proposals.stream()
                .map(p -> new ProposedEvent(p.eventId(), Sequencer.actorFor(p.payload().type(), principal),
                        ingress.offload(principal.tenantId(), p.payload())))
                .toList();
        return send(new CommandEnvelope(UUID.randomUUID().toString(), sessionId, principal.tenantId(), principal, Instant.now(),
                new Command.AppendEvents(events, expectedSeq, epoch, sessionStartedAt)));
    }

    /**
     * The pin the sequencer answered: a re-sent create, subagent or fork is answered with the one its session was given, not
     * the one computed for the request again (the weights, or the parent, may have moved since); the proposed one from a
     * sequencer of an earlier release, which answers none.
     */
    private static void putPin(ObjectNode out, CommandVerdict.Accepted reply, String proposedVersion, String proposedModel) {
        CommandVerdict.Pin pin = reply.pin().orElseGet(() -> new CommandVerdict.Pin(proposedVersion, proposedModel));
        out.put("harnessVersion", pin.harnessVersion());
        out.put("modelId", pin.modelId());
    }

    /** The session's start the sequencer answered, which its client sends back with its appends; null when it did not keep it. */
    private static void putStart(ObjectNode out, CommandVerdict.Accepted reply) {
        reply.sessionStartedAt().ifPresentOrElse(at -> out.put("sessionStartedAt", at.toString()), () -> out.putNull("sessionStartedAt"));
    }

    private CommandVerdict.Accepted send(CommandEnvelope envelope) {
        var command = gateway.encode(envelope);
        if (command.size() > config.maxCommandBytes()) {
            throw new ApiException(413, "too_large", "the request is " + command.size() + " bytes after large content was offloaded; "
                    + "the limit is " + config.maxCommandBytes());
        }
        CommandVerdict verdict = gateway.send(command);
        if (verdict instanceof CommandVerdict.Accepted accepted) {
            return accepted;
        }
        if (verdict instanceof CommandVerdict.Rejected rejected) {
            throw Verdicts.refusal(rejected);
        }
        throw new IllegalStateException("unhandled verdict " + verdict.getClass().getName());
    }

    /**
     * A session starts only through the endpoint that checks what its first event says: create pins it to a registered
     * harness version, subagents keeps a child no wider and within the parent's budget, fork records which parent it forked.
     * The same event proposed on the events endpoint would skip those checks.
     */
    private static void startsNoSession(EventPayload payload, String field) {
        String instead = payload instanceof SessionStarted ? "POST /v1/sessions (a subagent: POST /v1/sessions/{id}/subagents)"
                : payload instanceof SessionForked ? "POST /v1/sessions/{id}/fork" : null;
        if (instead != null) {
            throw new ApiException(422, "illegal_event", "'" + payload.type() + "' starts a session: " + instead
                    + " writes it, after checking what it says; the events endpoint does not").with("field", field);
        }
    }

    private SessionHead visibleHead(String sessionId) {
        requireSessionId(sessionId);
        return stores.head(caller.principal().tenantId(), sessionId).orElseThrow(() -> ApiException.notFound("session"));
    }

    private static void requireSessionId(String sessionId) {
        if (!ClientIds.isValid(sessionId)) {
            throw ApiException.notFound("session");
        }
    }

    /** A request body read as its type, and how many secrets were redacted from it. */
    record Read<T>(T request, int redactions) {}

    /**
     * A request body ({@link Requests#object}) read as {@code type} once every string of it (values and member names) is
     * scrubbed of secrets, whatever the endpoint: an id or a version a client picks is stored and shown like any text it
     * sends, so a token sent as one is redacted, and then refused as an id, naming its field. A tool mode, where the body
     * has one, is read exactly.
     */
    static <T> Read<T> read(EventJson json, byte[] body, Class<T> type) {
        JsonNode tree = Requests.object(json.mapper(), body);
        int redactions = Ingress.scrubTree(tree);
        if (type == Requests.CreateSession.class || type == Requests.Subagent.class) {
            exactToolMode(tree);
        }
        return new Read<>(json.read(tree, type), redactions);
    }

    private static String eventIdOr(String eventId) {
        return eventId != null ? eventId : UUID.randomUUID().toString();
    }

    /**
     * The command id of a claim or migration: derived from the client's request id, so that a retry is the same command,
     * and from the session and tenant it is for, since a client may send the same request id for many sessions (a worker
     * naming its claims after itself): the channel matches a verdict to its caller by command id, and two commands in
     * flight under one id would each be answered the other's verdict. A random one without a request id.
     */
    static String commandIdFor(String tenantId, String sessionId, String requestId) {
        return requestId != null ? DerivedIds.ofParts(tenantId, sessionId, requestId) : UUID.randomUUID().toString();
    }

    /**
     * Jackson trims enum names ({@code "WRITE "} reads as WRITE); a tool mode is access control, so only the exact name
     * is accepted.
     */
    private static void exactToolMode(com.fasterxml.jackson.databind.JsonNode tree) {
        com.fasterxml.jackson.databind.JsonNode mode = tree.get("toolMode");
        if (mode != null && mode.isTextual() && java.util.Arrays.stream(ToolMode.values()).noneMatch(m -> m.name().equals(mode.asText()))) {
            throw ApiException.badRequest("toolMode", "must be READ_ONLY or WRITE, exactly");
        }
    }
}
