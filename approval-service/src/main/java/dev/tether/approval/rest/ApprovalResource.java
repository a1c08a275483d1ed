package dev.tether.approval.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.approval.config.ApprovalConfig;
import dev.tether.approval.domain.ApprovalItem;
import dev.tether.approval.domain.ApprovalMachine;
import dev.tether.approval.domain.DecisionKind;
import dev.tether.approval.domain.DecisionRequest;
import dev.tether.approval.domain.SessionApprovals;
import dev.tether.approval.domain.Verdict;
import dev.tether.approval.kafka.ApprovalReads;
import dev.tether.approval.kafka.ApprovalStores;
import dev.tether.approval.kafka.DecisionGateway;
import dev.tether.core.auth.TetherPrincipal;
import dev.tether.core.blob.BlobStore;
import dev.tether.core.event.Event;
import dev.tether.core.event.InvalidEventException;
import dev.tether.core.id.ClientIds;
import dev.tether.kit.kafka.CommandVerdict;
import dev.tether.kit.kafka.StoreSignals;
import dev.tether.kit.service.TetherConfig;
import dev.tether.kit.service.auth.Caller;
import dev.tether.kit.service.rest.ApiException;
import dev.tether.kit.service.rest.OwnerRouting;
import dev.tether.kit.service.rest.StrictInput;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.UriInfo;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.ParameterIn;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.jboss.logging.Logger;

/**
 * The approvers' API (issue 6): the items of the caller's tenant (pending approvals and unknown outcomes, oldest
 * first), one item, and a decision on one. Another tenant's item answers 404, like a missing one. Decisions are
 * appended in the approver's own name; the sequencer has the last word, so a decision that lost a race answers 409.
 *
 * <p>With several instances each holds some sessions' partitions: an item or a decision is served by the instance that
 * holds the session (forwarded there once, {@link OwnerRouting}), and a list is gathered from every instance, each
 * answering for its own partitions, or is 503 rather than partial.
 */
@Path("/v1/approvals")
@Produces(MediaType.APPLICATION_JSON)
public class ApprovalResource {

    private static final Logger LOG = Logger.getLogger(ApprovalResource.class);
    /** The largest page of the list. */
    static final int MAX_PAGE = 1000;
    static final Set<String> BODY_FIELDS = Set.of("decision", "tool", "pathGlob", "reason", "requestedAt");
    private static final Duration SETTLE = Duration.ofSeconds(5);

    private final Caller caller;
    private final ApprovalReads reads;
    private final DecisionGateway gateway;
    private final BlobStore blobs;
    private final ItemJson items;
    private final ObjectMapper json;
    private final OwnerRouting routing;
    private final StoreSignals signals;
    private final int partitions;

    ApprovalResource(Caller caller, ApprovalReads reads, DecisionGateway gateway, BlobStore blobs, ObjectMapper json,
                     ApprovalConfig config, OwnerRouting routing, TetherConfig tether, StoreSignals signals) {
        this.caller = caller;
        this.signals = signals;
        this.routing = routing;
        this.partitions = tether.layout().partitions();
        this.reads = reads;
        this.gateway = gateway;
        this.blobs = blobs;
        this.json = json;
        this.items = new ItemJson(json, config.timeout());
    }

    /**
     * {@code status}: PENDING (the default), another status, FINISHED (every status but PENDING) or ALL; {@code kind}:
     * APPROVAL or UNKNOWN_OUTCOME; {@code order}: oldest (the default) or newest first; {@code limit} and {@code after}: a
     * page, as the session lists page (all of them when no {@code limit} is asked for, as before it).
     */
    @GET
    @RolesAllowed({"approver", "admin"})
    @Operation(summary = "The items of the caller's tenant (pending approvals and unknown outcomes), oldest first unless "
            + "order=newest; with limit, a page, and nextAfter where the next page starts")
    @APIResponse(responseCode = "200", ref = "ApprovalItems")
    @APIResponse(responseCode = "400", ref = "BadRequest")
    @Parameter(name = "status", in = ParameterIn.QUERY, description = "PENDING (the default), another status, FINISHED (any "
            + "but PENDING), or ALL", schema = @Schema(type = SchemaType.STRING, enumeration = {"PENDING", "GRANTED", "DENIED",
                    "EXPIRED", "CANCELLED", "MARKED_DONE", "RETRIED", "ABANDONED", "FINISHED", "ALL"}))
    @Parameter(name = "kind", in = ParameterIn.QUERY, description = "one kind only",
            schema = @Schema(type = SchemaType.STRING, enumeration = {"APPROVAL", "UNKNOWN_OUTCOME"}))
    @Parameter(name = "order", in = ParameterIn.QUERY, description = "oldest (the default) or newest first",
            schema = @Schema(type = SchemaType.STRING, enumeration = {"oldest", "newest"}))
    @Parameter(name = "after", in = ParameterIn.QUERY, description = "the items after this place in the order, "
            + "<requestedAt>~<item id> (the nextAfter of the page before)", schema = @Schema(type = SchemaType.STRING))
    @Parameter(name = "limit", in = ParameterIn.QUERY, description = "the most items wanted, up to " + MAX_PAGE
            + "; every item when absent", schema = @Schema(type = SchemaType.INTEGER, format = "int32"))
    public ObjectNode list(@QueryParam("status") String status, @QueryParam("kind") String kind, @QueryParam("order") String orderParam,
                           @QueryParam("after") String afterParam, @QueryParam("limit") String limitParam,
                           @Context UriInfo uri, @Context HttpHeaders headers) {
        String tenantId = caller.principal().tenantId();
        boolean finished = "FINISHED".equals(status);
        ApprovalItem.Status wanted = status == null ? ApprovalItem.Status.PENDING
                : finished || "ALL".equals(status) ? null : parse(ApprovalItem.Status.class, status, "status", "FINISHED", "ALL");
        ApprovalItem.Kind kindWanted = kind == null ? null : parse(ApprovalItem.Kind.class, kind, "kind");
        if (orderParam != null && !List.of("oldest", "newest").contains(orderParam)) {
            throw ApiException.badRequest("order", "must be oldest or newest");
        }
        Comparator<ApprovalItem.Place> order = "newest".equals(orderParam) ? ApprovalItem.Place.OLDEST_FIRST.reversed()
                : ApprovalItem.Place.OLDEST_FIRST;
        ApprovalItem.Place after = afterParam == null ? null : place(afterParam);
        Integer limit = StrictInput.intParam(limitParam, "limit");
        if (limit != null && (limit < 1 || limit > MAX_PAGE)) {
            throw ApiException.badRequest("limit", "must be from 1 to " + MAX_PAGE);
        }
        Predicate<ApprovalItem> selected = i -> (kindWanted == null || i.kind() == kindWanted)
                && (finished ? !i.status().pending() : wanted == null || i.status() == wanted);
        int kept = limit == null ? Integer.MAX_VALUE - 1 : limit + 1;
        var local = new ArrayList<JsonNode>();
        reads.page(tenantId, wanted == ApprovalItem.Status.PENDING, selected, order, after, kept).forEach(l -> local.add(items.of(l.item(),
                l.item().shown(), l.runBy())));
        return routing.page(ApprovalStores.SESSIONS, partitions, uri, headers, json, "approvals", local,
                Comparator.comparing(ApprovalResource::placeOf, order), limit, i -> placeOf(i).text());
    }

    private static ApprovalItem.Place place(String text) {
        try {
            ApprovalItem.Place place = ApprovalItem.Place.parse(text);
            if (ClientIds.isValid(place.sessionId())) {
                return place;
            }
        } catch (IllegalArgumentException e) {
            // answered below
        }
        throw ApiException.badRequest("after", "must be <requestedAt>~<item id>, the nextAfter of the page before");
    }

    /** An item's place, from its JSON (this instance's or another's). */
    private static ApprovalItem.Place placeOf(JsonNode item) {
        return new ApprovalItem.Place(Instant.parse(item.get("requestedAt").asText()), item.get("sessionId").asText(),
                item.get("seq").asLong());
    }

    /** The session-scope grants in force in the caller's tenant, with the calls each authorized without asking. */
    @GET
    @Path("grants")
    @RolesAllowed({"approver", "admin"})
    @Operation(summary = "The session-scope grants in force in the caller's tenant")
    @APIResponse(responseCode = "200", ref = "Grants")
    public ObjectNode grants(@Context UriInfo uri, @Context HttpHeaders headers) {
        var list = new ArrayList<JsonNode>();
        for (ApprovalReads.SessionGrant sg : reads.grants(caller.principal().tenantId())) {
            ObjectNode g = json.createObjectNode();
            list.add(g);
            g.put("sessionId", sg.sessionId());
            g.put("seq", sg.grant().seq());
            g.put("tool", sg.grant().tool());
            if (sg.grant().pathGlob() != null) {
                g.put("pathGlob", sg.grant().pathGlob());
            }
            g.put("approver", sg.grant().approver());
            g.put("grantedAt", sg.grant().grantedAt().toString());
            g.put("uses", sg.grant().uses());
            ArrayNode used = g.putArray("usedBy");
            sg.grant().usedBy().forEach(used::add);
        }
        list.addAll(routing.gatherFromOthers(ApprovalStores.SESSIONS, partitions, uri, headers, json, "grants"));
        list.sort(Comparator.comparing((JsonNode g) -> Instant.parse(g.get("grantedAt").asText()))
                .thenComparing(g -> g.get("sessionId").asText()).thenComparingLong(g -> g.get("seq").asLong()));
        ObjectNode out = json.createObjectNode();
        out.putArray("grants").addAll(list);
        return out;
    }

    @GET
    @Path("{id}")
    @RolesAllowed({"approver", "admin"})
    @Operation(summary = "One item, with the whole shown text")
    @APIResponse(responseCode = "200", ref = "ApprovalItem")
    @APIResponse(responseCode = "404", ref = "NotFound")
    public ObjectNode get(@PathParam("id") String id, @Context UriInfo uri, @Context HttpHeaders headers) {
        TetherPrincipal principal = caller.principal();
        ItemId itemId = ItemId.parse(id);
        routing.serveLocallyOrForward(ApprovalStores.SESSIONS, itemId.sessionId(), uri, headers);
        SessionApprovals session = reads.session(principal.tenantId(), itemId.sessionId()).orElseThrow(() -> ApiException.notFound("approval"));
        ApprovalItem item = session.item(itemId.seq()).orElseThrow(() -> ApiException.notFound("approval"));
        return items.of(item, fullShown(item), session.runBy(item.callId()));
    }

    @POST
    @Path("{id}/decision")
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed("approver")
    @Operation(summary = "Decide an item, in the approver's own name; a decision that lost a race is a 409",
            description = "403 forbidden: the caller is the principal that asked for the call (the item's requestedBy) and the "
                    + "decision is not DENY or ABANDON, which another approver must take. 409 already_decided: a person decided the "
                    + "item already; 409 item_ended: it ended without a decision taking effect (expired, cancelled, or its call's "
                    + "turn was interrupted); 409 conflict: the decision lost a race in the log, or requestedAt names another call.")
    @APIResponse(responseCode = "200", ref = "ApprovalItem")
    @APIResponse(responseCode = "400", ref = "BadRequest")
    @APIResponse(responseCode = "404", ref = "NotFound")
    @APIResponse(responseCode = "409", ref = "Conflict")
    public ObjectNode decide(@PathParam("id") String id,
                             @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(ref = "Decision")))
                             byte[] bytes, @Context UriInfo uri, @Context HttpHeaders headers) {
        TetherPrincipal principal = caller.principal();
        ItemId itemId = ItemId.parse(id);
        DecisionRequest request = decision(json, bytes);
        // only the instance holding the session decides: it alone reads the session's state, and the request is
        // forwarded at most once (a decision's eventId is derived from it, so even a repeat appends nothing twice)
        routing.serveLocallyOrForward(ApprovalStores.SESSIONS, itemId.sessionId(), uri, headers, bytes);
        SessionApprovals session = reads.session(principal.tenantId(), itemId.sessionId()).orElse(null);
        Verdict verdict = ApprovalMachine.decide(session, itemId.seq(), request, principal);
        if (verdict instanceof Verdict.Refused refused) {
            throw refusal(refused);
        }
        Verdict.Append append = (Verdict.Append) verdict;
        Optional<ApiException> pathless = pathlessGlob(json, request, append.item());
        if (pathless.isPresent()) {
            throw pathless.get();
        }
        CommandVerdict reply = gateway.send(itemId.sessionId(), principal.tenantId(), principal, append.event(), session.startedAt());
        if (reply instanceof CommandVerdict.Rejected rejected) {
            if ("not_found".equals(rejected.code())) {
                throw ApiException.notFound("approval");
            }
            // someone else decided, or the approval expired or was cancelled, between the check and the append
            throw new ApiException(409, "conflict", "the decision was not recorded: " + rejected.message());
        }
        long seq = ((CommandVerdict.Accepted) reply).appended().get(0).seq();
        ApprovalItem settled = settled(principal, itemId, append, seq, session);
        return items.of(settled, append.item().shown(), session.runBy(settled.callId()));
    }

    /**
     * The item once this service has folded the decision (the fold wakes the wait, {@link StoreSignals}); if that takes
     * long, the decision folded into the state seen before.
     */
    private ApprovalItem settled(TetherPrincipal principal, ItemId itemId, Verdict.Append append, long seq, SessionApprovals before) {
        try {
            Optional<ApprovalItem> folded = signals.await(ApprovalStores.SESSIONS, itemId.sessionId(), SETTLE,
                    () -> reads.session(principal.tenantId(), itemId.sessionId()).flatMap(s -> s.item(itemId.seq()))
                            .filter(item -> !item.status().pending()));
            if (folded.isPresent()) {
                return folded.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        var event = new Event(append.event().eventId(), itemId.sessionId(), principal.tenantId(), seq, Instant.now(),
                append.event().actor(), "", append.event().payload());
        return ApprovalMachine.evolve(before, event).item(itemId.seq()).orElse(append.item());
    }

    /** The decision a body asks for; 400 naming the field (or {@code malformed_json}) when it does not say one plainly. */
    static DecisionRequest decision(ObjectMapper json, byte[] bytes) {
        return request(StrictInput.json(json, bytes));
    }

    private static DecisionRequest request(JsonNode body) {
        if (body == null || !body.isObject()) {
            throw ApiException.badRequest("decision", "the body must be a JSON object with a decision");
        }
        var names = body.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!BODY_FIELDS.contains(name)) {
                // names the body, not the unknown member: its name is client text and may be a secret (as EventJson does)
                throw ApiException.badRequest(InvalidEventException.WHOLE, "has a field a decision does not have; its fields are "
                        + String.join(", ", BODY_FIELDS.stream().sorted().toList()));
            }
        }
        String decision = text(body, "decision");
        if (decision == null) {
            throw ApiException.badRequest("decision", "is required: one of " + Arrays.toString(DecisionKind.values()));
        }
        DecisionKind kind = parse(DecisionKind.class, decision, "decision");
        return new DecisionRequest(kind, text(body, "tool"), text(body, "pathGlob"), text(body, "reason"), instant(body, "requestedAt"));
    }

    /** An optional ISO-8601 instant of the body, e.g. {@code 2026-12-05T00:31:15.865Z}. */
    private static Instant instant(JsonNode body, String field) {
        String value = text(body, field);
        if (value == null) {
            return null;
        }
        try {
            return Instant.parse(value);
        } catch (java.time.format.DateTimeParseException e) {
            throw ApiException.badRequest(field, "must be an instant as the item gives it, e.g. 2026-12-05T00:31:15.865Z");
        }
    }

    private static String text(JsonNode body, String field) {
        JsonNode value = body.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw ApiException.badRequest(field, "must be a string");
        }
        return value.asText();
    }

    /** {@code value} as a constant of {@code type}; else 400 naming {@code field} and what it may be ({@code others} too). */
    private static <E extends Enum<E>> E parse(Class<E> type, String value, String field, String... others) {
        for (E constant : type.getEnumConstants()) {
            if (constant.name().equals(value)) {
                return constant;
            }
        }
        String allowed = Stream.concat(Arrays.stream(type.getEnumConstants()).map(Enum::name), Arrays.stream(others))
                .collect(Collectors.joining(", "));
        throw ApiException.badRequest(field, "must be one of " + allowed);
    }

    static ApiException refusal(Verdict.Refused refused) {
        return switch (refused.reason()) {
            case NOT_FOUND -> ApiException.notFound("approval");
            case CONFLICT -> new ApiException(409, "already_decided", refused.message());
            case ENDED -> new ApiException(409, "item_ended", refused.message());
            case CHANGED -> new ApiException(409, "conflict", refused.message()).with("field", refused.field());
            case INVALID -> ApiException.badRequest(refused.field(), refused.message());
            case FORBIDDEN -> new ApiException(403, "forbidden", refused.message());
        };
    }

    /**
     * A 400 naming {@code pathGlob} for a session grant with a path glob on a call whose arguments name no {@code path}
     * (a string), e.g. a {@code run_command} or an {@code http_fetch}; empty otherwise. A glob is matched against each
     * call's {@code path} as written and where it leads ({@code WorkspaceInspector.target}, {@code CallTarget}), and a
     * call without one is never covered ({@code PathGlob.covers}): such a grant would be listed in force and cover none of
     * the tool's calls like this one, each of which would ask again. It is checked here, where JSON is read (the domain
     * reads none), after {@link ApprovalMachine#decide} took the decision; one appended past the API authorizes nothing
     * more than its own call, which fails closed.
     */
    static Optional<ApiException> pathlessGlob(ObjectMapper json, DecisionRequest request, ApprovalItem item) {
        if (request.decision() != DecisionKind.GRANT_SESSION || request.pathGlob() == null) {
            return Optional.empty();
        }
        JsonNode arguments;
        try {
            arguments = json.readTree(item.argumentsJson());
        } catch (IOException e) {
            arguments = null; // not JSON: no path (the executor refuses such a call anyway)
        }
        if (arguments != null && arguments.isObject() && arguments.path("path").isTextual()) {
            return Optional.empty();
        }
        return Optional.of(ApiException.badRequest("pathGlob", "call '" + item.callId() + "' ('" + item.tool() + "') has no 'path'"
                + " argument, and a path glob covers only calls whose 'path' falls under it: it would cover none of the '"
                + item.tool() + "' calls like this one; grant the session without one, or grant once"));
    }

    /** The whole shown text: read back from the blob store when it was too large for the event. */
    private String fullShown(ApprovalItem item) {
        if (item.shownRef() == null) {
            return item.shown();
        }
        try {
            Optional<InputStream> blob = blobs.open(item.tenantId(), item.shownRef().sha256());
            if (blob.isPresent()) {
                try (InputStream in = blob.get()) {
                    return new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
            }
        } catch (IOException e) {
            LOG.warnf("cannot read the shown text of %s from the blob store: %s", item.id(), e.getMessage());
        }
        return item.shown();
    }

    /** An item id, {@code <sessionId>~<seq>}; one that cannot name an item is not found. */
    record ItemId(String sessionId, long seq) {
        static ItemId parse(String id) {
            int at = id == null ? -1 : id.lastIndexOf(ApprovalItem.ID_SEPARATOR);
            if (at < 1 || !ClientIds.isValid(id.substring(0, at))) {
                throw ApiException.notFound("approval");
            }
            try {
                long seq = Long.parseLong(id.substring(at + 1));
                if (seq < 1) {
                    throw ApiException.notFound("approval");
                }
                return new ItemId(id.substring(0, at), seq);
            } catch (NumberFormatException e) {
                throw ApiException.notFound("approval");
            }
        }
    }
}
