package dev.tether.session.rest;

import dev.tether.kit.service.auth.Caller;
import dev.tether.kit.service.rest.ApiException;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

/** Content offloaded from events, served to the tenant that owns it only. */
@Path("/v1/artifacts")
public class ArtifactResource {

    private final Caller caller;
    private final Ingress ingress;

    ArtifactResource(Caller caller, Ingress ingress) {
        this.caller = caller;
        this.ingress = ingress;
    }

    @GET
    @Path("{sha256}")
    @Produces({"application/octet-stream", "application/json"})
    @RolesAllowed({"agent", "approver", "operator", "admin"})
    @Operation(summary = "Content offloaded from an event (its blob reference's sha256), to its own tenant only")
    @APIResponse(responseCode = "200", description = "the content's bytes, as they were offloaded; ETag is the sha256",
            content = @Content(mediaType = "application/octet-stream", schema = @Schema(type = SchemaType.STRING, format = "binary")))
    @APIResponse(responseCode = "404", ref = "NotFound")
    public Response get(@PathParam("sha256") String sha256) {
        String tenantId = caller.principal().tenantId();
        return ingress.blobs().open(tenantId, sha256)
                .map(in -> Response.ok(in, "application/octet-stream").header("ETag", '"' + sha256 + '"').build())
                .orElseThrow(() -> ApiException.notFound("artifact"));
    }
}
