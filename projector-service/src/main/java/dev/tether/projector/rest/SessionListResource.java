package dev.tether.projector.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.core.id.ClientIds;
import dev.tether.kit.json.EventJson;
import dev.tether.kit.service.TetherConfig;
import dev.tether.kit.service.auth.Caller;
import dev.tether.kit.service.rest.ApiException;
import dev.tether.kit.service.rest.OwnerRouting;
import dev.tether.kit.service.rest.StrictInput;
import dev.tether.projector.config.ProjectorConfig;
import dev.tether.projector.domain.SessionOverview;
import dev.tether.projector.kafka.ProjectorReads;
import dev.tether.projector.kafka.ProjectorStores;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.UriInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.ParameterIn;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

/**
 * The caller's tenant's sessions as the projection has them (the session explorer's list): one {@link SessionOverview}
 * each, read from its checkpoint, so it says what the session-service's list cannot: how many calls are open and wait
 * for an approver, and when the session last moved. A page at a time, most recently active first: each instance answers
 * the first {@code limit + 1} of the partitions it holds after the cursor, and the page is merged from every instance's
 * ({@link OwnerRouting#gatherFromOthers}), or is 503 rather than partial. Each instance still reads every checkpoint of
 * the tenant it holds for a page (there is no index by activity); what it keeps and answers is bounded.
 */
@Path("/v1/sessions")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({"agent", "approver", "operator", "admin"})
public class SessionListResource {

    /** The page size when none is asked for. */
    static final int DEFAULT_LIMIT = 100;

    private final Caller caller;
    private final ProjectorReads reads;
    private final EventJson json;
    private final OwnerRouting routing;
    private final int partitions;
    private final int maxPageSize;

    SessionListResource(Caller caller, ProjectorReads reads, EventJson json, OwnerRouting routing, TetherConfig tether,
                        ProjectorConfig config) {
        this.caller = caller;
        this.reads = reads;
        this.json = json;
        this.routing = routing;
        this.partitions = tether.layout().partitions();
        this.maxPageSize = config.maxPageSize();
    }

    @GET
    @Operation(summary = "A page of the caller's tenant's sessions as the projection has them: status, pins, worker, last "
            + "activity, open calls, pending approvals and unknown outcomes; most recently active first, then by id. nextAfter, "
            + "when present, is where the next page starts; a session that moved since the first page was read is on none of "
            + "the later ones")
    @APIResponse(responseCode = "200", ref = "SessionOverviews")
    @APIResponse(responseCode = "400", ref = "BadRequest")
    @Parameter(name = "after", in = ParameterIn.QUERY, description = "the sessions after this place, <lastActivity>~<sessionId> "
            + "(the nextAfter of the page before); from the most recently active by default",
            schema = @Schema(type = SchemaType.STRING))
    @Parameter(name = "limit", in = ParameterIn.QUERY, description = "the most sessions wanted (default " + DEFAULT_LIMIT + ")",
            schema = @Schema(type = SchemaType.INTEGER, format = "int32"))
    public ObjectNode list(@QueryParam("after") String afterParam, @QueryParam("limit") String limitParam, @Context UriInfo uri,
                           @Context HttpHeaders headers) {
        SessionOverview.Place after = afterParam == null ? null : place(afterParam);
        Integer limit = StrictInput.intParam(limitParam, "limit");
        int size = limit == null ? DEFAULT_LIMIT : limit;
        if (size < 1 || size > maxPageSize) {
            throw ApiException.badRequest("limit", "must be from 1 to " + maxPageSize);
        }
        var local = new ArrayList<JsonNode>();
        reads.sessions(caller.principal().tenantId(), after, size + 1).forEach(o -> local.add(json.mapper().valueToTree(o)));
        return routing.page(ProjectorStores.CHECKPOINTS, partitions, uri, headers, json.mapper(), "sessions", local,
                Comparator.comparing(SessionListResource::placeOf, SessionOverview.Place.ORDER), size, o -> placeOf(o).text());
    }

    private static SessionOverview.Place place(String text) {
        try {
            SessionOverview.Place place = SessionOverview.Place.parse(text);
            if (ClientIds.isValid(place.sessionId())) {
                return place;
            }
        } catch (IllegalArgumentException e) {
            // answered below
        }
        throw ApiException.badRequest("after", "must be <lastActivity>~<sessionId>, the nextAfter of the page before");
    }

    /** An overview's place, from its JSON (this instance's or another's). */
    private static SessionOverview.Place placeOf(JsonNode overview) {
        JsonNode at = overview.path("lastActivity");
        return new SessionOverview.Place(at.isTextual() ? Instant.parse(at.asText()) : null, overview.path("sessionId").asText());
    }
}
