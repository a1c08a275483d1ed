package dev.tether.approval.rest;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

/**
 * The approvers' page: one static HTML file with its script, no build toolchain. It holds no data; its script reads
 * {@code /v1/approvals} with the approver's bearer token, polls for changes, and posts decisions. Served without
 * authentication for that reason.
 */
@Path("/approvals")
public class ApprovalPage {

    private static final String PAGE = "approvals/index.html";

    private final byte[] html = read();

    @GET
    @Produces(MediaType.TEXT_HTML)
    @Operation(summary = "The approvers' web page; it calls /v1/approvals with the approver's token")
    @APIResponse(responseCode = "200", description = "the page",
            content = @Content(mediaType = MediaType.TEXT_HTML, schema = @Schema(type = SchemaType.STRING)))
    public Response page() {
        return Response.ok(html).header("Cache-Control", "no-store")
                .header("Content-Security-Policy", "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
                        + "connect-src 'self'; frame-ancestors 'none'")
                .header("X-Content-Type-Options", "nosniff").build();
    }

    private static byte[] read() {
        try (InputStream in = ApprovalPage.class.getClassLoader().getResourceAsStream(PAGE)) {
            if (in == null) {
                throw new IllegalStateException("the page " + PAGE + " is not on the classpath");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
