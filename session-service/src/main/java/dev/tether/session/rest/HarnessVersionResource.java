package dev.tether.session.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.kit.json.EventJson;
import dev.tether.kit.service.TetherConfig;
import dev.tether.kit.service.auth.Caller;
import dev.tether.kit.service.rest.ApiException;
import dev.tether.kit.service.rest.OwnerRouting;
import dev.tether.session.domain.HarnessVersion;
import dev.tether.session.kafka.HarnessVersionLog;
import dev.tether.session.kafka.SessionStores;
import dev.tether.session.kafka.StoreNames;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.UriInfo;
import java.time.Duration;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.ParameterIn;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * Harness versions for rainbow deploys: each version's weight for new sessions (a percentage, see
 * {@link HarnessAssignment}) and its share of them, its state, and how many sessions are still open
 * on it (a DRAINING version is done when that reaches 0). Each tenant's: an operator sees and changes its own tenant's
 * versions only, whose weights assign only its tenant's sessions, and counts only its tenant's sessions; an entry written
 * before versions were a tenant's is every tenant's until the tenant registers the version itself.
 */
@Path("/v1/harness-versions")
@Produces(MediaType.APPLICATION_JSON)
public class HarnessVersionResource {

    private static final Duration VISIBLE = Duration.ofSeconds(10);

    private final Caller caller;
    private final EventJson json;
    private final SessionStores stores;
    private final HarnessAssignment assignment;
    private final HarnessVersionLog log;
    private final OwnerRouting routing;
    private final int partitions;

    HarnessVersionResource(Caller caller, EventJson json, SessionStores stores, HarnessAssignment assignment,
                           HarnessVersionLog log, OwnerRouting routing, TetherConfig tether) {
        this.caller = caller;
        this.json = json;
        this.stores = stores;
        this.assignment = assignment;
        this.log = log;
        this.routing = routing;
        this.partitions = tether.layout().partitions();
    }

    @GET
    @RolesAllowed({"operator", "admin"})
    @Operation(summary = "The caller's tenant's harness versions: weight, share of new sessions, state, pinned model, open sessions")
    @APIResponse(responseCode = "200", ref = "HarnessVersions")
    public ObjectNode list(@Context UriInfo uri, @Context HttpHeaders headers) {
        String tenantId = caller.principal().tenantId();
        Map<String, HarnessVersion> versions = assignment.versions(tenantId);
        Map<String, Double> shares = assignment.shares(tenantId);
        // each instance counts the open sessions of the partitions it holds: the others' counts (the caller's tenant's, as
        // they answer the caller) are added
        Map<String, Long> open = new HashMap<>(stores.openSessionsByVersion(tenantId));
        for (JsonNode other : routing.gatherFromOthers(StoreNames.HEADS, partitions, uri, headers, json.mapper(), "versions")) {
            open.merge(other.path("version").asText(), other.path("openSessions").asLong(), Long::sum);
        }
        var names = new TreeSet<>(versions.keySet());
        names.addAll(open.keySet());
        ObjectNode out = json.mapper().createObjectNode();
        ArrayNode list = out.putArray("versions");
        for (String name : names) {
            HarnessVersion v = versions.get(name);
            ObjectNode entry = list.addObject().put("version", name);
            entry.put("weight", v == null ? 0 : v.weight());
            entry.put("share", Math.round(shares.getOrDefault(name, 0.0) * 100) / 100.0);
            entry.put("state", v == null ? "UNREGISTERED" : v.state().name());
            if (v != null && v.isImplicitDefault()) {
                entry.put("default", true);
            }
            if (v != null && v.modelId() != null) {
                entry.put("modelId", v.modelId());
            }
            entry.put("openSessions", open.getOrDefault(name, 0L));
        }
        return out;
    }

    @PUT
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed({"operator", "admin"})
    @Operation(summary = "Register or change a harness version of the caller's tenant; answers the tenant's versions once this"
            + " instance sees the change")
    @APIResponse(responseCode = "200", ref = "HarnessVersions")
    @APIResponse(responseCode = "400", ref = "BadRequest")
    @APIResponse(responseCode = "409", ref = "Conflict")
    public ObjectNode put(
            @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(ref = "HarnessVersion")))
            byte[] bytes, @Context UriInfo uri, @Context HttpHeaders headers) {
        String operator = caller.principal().id();
        String tenantId = caller.principal().tenantId();
        var request = entry(json, bytes);
        var entry = new HarnessVersion(request.version(), request.weight(), HarnessVersion.State.valueOf(request.state()),
                request.modelId(), Instant.now(), operator, tenantId);
        HarnessAssignment.checkTotal(assignment.versions(tenantId), entry);
        boolean written;
        try {
            written = log.write(entry);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted", 1);
        }
        if (!written) {
            throw ApiException.unavailable("Kafka did not take the change; try again", 2);
        }
        awaitVisible(entry);
        return list(uri, headers);
    }

    /**
     * The body of a {@code PUT}, scrubbed of secrets like every write's ({@link SessionResource#read}): the entry is stored on
     * harness-versions and shown to every operator, so a token sent as its model is redacted, and one sent as its version
     * refused as a version.
     */
    static Requests.HarnessVersionEntry entry(EventJson json, byte[] body) {
        return SessionResource.read(json, body, Requests.HarnessVersionEntry.class).request();
    }

    /** Reads its own write: waits until this instance's copy of harness-versions has the entry. */
    private void awaitVisible(HarnessVersion entry) {
        if (!stores.awaitHarnessVersion(entry, VISIBLE)) {
            throw ApiException.unavailable("the change was written but is not visible yet", 1);
        }
    }
}
