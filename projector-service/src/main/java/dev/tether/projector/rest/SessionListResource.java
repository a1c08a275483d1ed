package dev.tether.projector.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.kit.json.EventJson;
import dev.tether.kit.service.TetherConfig;
import dev.tether.kit.service.auth.Caller;
import dev.tether.kit.service.rest.OwnerRouting;
import dev.tether.projector.domain.SessionOverview;
import dev.tether.projector.kafka.ProjectorReads;
import dev.tether.projector.kafka.ProjectorStores;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.UriInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

/**
 * The caller's tenant's sessions as the projection has them (the session explorer's list): one {@link SessionOverview}
 * each, read from its checkpoint, so it says what the session-service's list cannot: how many calls are open and wait
 * for an approver, and when the session last moved. Each instance answers for the partitions it holds; the list is
 * gathered from every instance ({@link OwnerRouting#gatherFromOthers}), or is 503 rather than partial.
 */
@Path("/v1/sessions")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({"agent", "approver", "operator", "admin"})
public class SessionListResource {

    private final Caller caller;
    private final ProjectorReads reads;
    private final EventJson json;
    private final OwnerRouting routing;
    private final int partitions;

    SessionListResource(Caller caller, ProjectorReads reads, EventJson json, OwnerRouting routing, TetherConfig tether) {
        this.caller = caller;
        this.reads = reads;
        this.json = json;
        this.routing = routing;
        this.partitions = tether.layout().partitions();
    }

    @GET
    @Operation(summary = "The caller's tenant's sessions as the projection has them: status, pins, worker, last activity, "
            + "open calls, pending approvals and unknown outcomes; most recently active first")
    @APIResponse(responseCode = "200", ref = "SessionOverviews")
    public ObjectNode list(@Context UriInfo uri, @Context HttpHeaders headers) {
        var all = new ArrayList<JsonNode>();
        reads.sessions(caller.principal().tenantId()).forEach(o -> all.add(json.mapper().valueToTree(o)));
        all.addAll(routing.gatherFromOthers(ProjectorStores.CHECKPOINTS, partitions, uri, headers, json.mapper(), "sessions"));
        all.sort(Comparator.comparing((JsonNode o) -> o.path("lastActivity").isTextual() ? Instant.parse(o.get("lastActivity").asText())
                : Instant.MIN, Comparator.reverseOrder()).thenComparing(o -> o.path("sessionId").asText()));
        ObjectNode out = json.mapper().createObjectNode();
        ArrayNode sessions = out.putArray("sessions");
        sessions.addAll(all);
        return out;
    }
}
