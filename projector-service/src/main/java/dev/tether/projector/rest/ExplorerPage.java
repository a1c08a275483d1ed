package dev.tether.projector.rest;

import dev.tether.projector.config.ProjectorConfig;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

/**
 * The session explorer: a page that shows one session's log as a timeline, its checkpoint and model context at any seq,
 * its recovery report, and the tenant's sessions. Plain HTML, CSS and a script served from the classpath, no build step.
 * It holds no data: its script asks for a bearer token, keeps it in the browser and sends it on every call of this
 * service's API ({@code /v1/sessions…}), which scopes every answer to the token's tenant. Served without authentication
 * for that reason, like the approvers' page. The page's own origin is the only one it calls (its Content-Security-Policy
 * says so): a running session's live events come through this service ({@link LiveRelay}).
 */
@Path("/explorer")
public class ExplorerPage {

    private static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

    private final byte[] html;
    private final byte[] script = read("explorer/explorer.js");
    private final byte[] style = read("explorer/explorer.css");

    ExplorerPage(ProjectorConfig config) {
        String page = new String(read("explorer/index.html"), StandardCharsets.UTF_8);
        this.html = page.replace("{{traceUrl}}", attribute(config.explorerTraceUrl().orElse(""))).getBytes(StandardCharsets.UTF_8);
    }

    @GET
    @Produces(MediaType.TEXT_HTML)
    @Operation(summary = "The session explorer's web page; it calls /v1/sessions… of this service with the reader's token")
    @APIResponse(responseCode = "200", description = "the page",
            content = @Content(mediaType = MediaType.TEXT_HTML, schema = @Schema(type = SchemaType.STRING)))
    public Response page() {
        return asset(html, MediaType.TEXT_HTML + ";charset=utf-8").header("Content-Security-Policy", CSP).build();
    }

    /** The page's script: static, no data. */
    @GET
    @Path("explorer.js")
    @Produces("text/javascript")
    @Operation(hidden = true)
    public Response script() {
        return asset(script, "text/javascript;charset=utf-8").build();
    }

    /** The page's style sheet: static, no data. */
    @GET
    @Path("explorer.css")
    @Produces("text/css")
    @Operation(hidden = true)
    public Response style() {
        return asset(style, "text/css;charset=utf-8").build();
    }

    private static Response.ResponseBuilder asset(byte[] body, String type) {
        return Response.ok(body, type).header("Cache-Control", "no-store").header("X-Content-Type-Options", "nosniff")
                .header("Referrer-Policy", "no-referrer");
    }

    /** {@code text} as the value of a double-quoted HTML attribute. */
    static String attribute(String text) {
        return text.replace("&", "&amp;").replace("\"", "&quot;").replace("<", "&lt;").replace(">", "&gt;");
    }

    private static byte[] read(String resource) {
        try (InputStream in = ExplorerPage.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("the explorer's " + resource + " is not on the classpath");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
