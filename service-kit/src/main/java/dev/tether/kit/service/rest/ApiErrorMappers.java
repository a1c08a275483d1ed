package dev.tether.kit.service.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamWriteException;
import com.fasterxml.jackson.databind.exc.InvalidDefinitionException;
import dev.tether.core.event.InvalidEventException;
import dev.tether.kit.kafka.NoVerdictException;
import dev.tether.kit.kafka.RegistryUnavailableException;
import dev.tether.kit.kafka.StoreFormatException;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import java.util.Map;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * Every error as a JSON body with a stable {@code error} code, and the right status: a client
 * mistake is a 4xx naming what is wrong, never a 500; an unexpected failure is a 500 that reveals
 * nothing of the request (it may hold secrets) and is logged with its stack trace.
 */
public class ApiErrorMappers {

    private static final Logger LOG = Logger.getLogger(ApiErrorMappers.class);

    /** Seconds: a value of a newer release becomes readable when an upgraded instance answers, not within a second. */
    static final int STORE_FORMAT_RETRY_AFTER = 5;

    @ServerExceptionMapper
    public Response api(ApiException e) {
        return e.toResponse();
    }

    /** Another instance's answer to a forwarded read, returned as it is. */
    @ServerExceptionMapper
    public Response remote(OwnerRouting.RemoteAnswer e) {
        return e.response();
    }

    @ServerExceptionMapper
    public Response invalidField(InvalidEventException e) {
        return ApiException.badRequest(e.field(), e.getMessage()).toResponse();
    }

    /**
     * JSON the client sent that cannot be read: 400. A failure of this service's own JSON (a type it cannot map, a
     * response it cannot write) is no fault of the body: a 500, logged ({@link #unexpected}).
     */
    @ServerExceptionMapper
    public Response malformedJson(JsonProcessingException e) {
        if (e instanceof InvalidDefinitionException || e instanceof StreamWriteException) {
            return unexpected(e);
        }
        var location = e.getLocation();
        String where = location == null ? "" : " at line " + location.getLineNr() + ", column " + location.getColumnNr();
        return new ApiException(400, "malformed_json", "the body is not valid JSON" + where).toResponse();
    }

    @ServerExceptionMapper({UnauthorizedException.class, AuthenticationFailedException.class})
    public Response unauthorized() {
        return Response.status(401).type("application/json").header("WWW-Authenticate", "Bearer")
                .entity(Map.of("error", "unauthorized", "message", "a valid bearer token is required")).build();
    }

    @ServerExceptionMapper
    public Response forbidden(ForbiddenException e) {
        return new ApiException(403, "forbidden", "the caller's role does not allow this").toResponse();
    }

    /** A command without the sequencer's verdict: it may or may not have been applied, and may be sent again. */
    @ServerExceptionMapper
    public Response noVerdict(NoVerdictException e) {
        return ApiException.unavailable(e.getMessage(), e.retryAfterSeconds()).toResponse();
    }

    /**
     * The schema registry did not answer a lookup this request needed (a schema not known yet): nothing was written
     * or read; the same request later may succeed. Also when it comes wrapped in another failure.
     */
    @ServerExceptionMapper
    public Response registryUnavailable(RegistryUnavailableException e) {
        return ApiException.unavailable("the schema registry does not answer; try again shortly", REGISTRY_RETRY_AFTER_SECONDS).toResponse();
    }

    /** Retry-After of a request that failed because the registry did not answer. */
    static final int REGISTRY_RETRY_AFTER_SECONDS = 5;

    /** A Kafka Streams store moved or is restoring in the middle of a read. */
    @ServerExceptionMapper
    public Response storeUnavailable(InvalidStateStoreException e) {
        return ApiException.unavailable("state is being restored or moved; try again shortly", 1).toResponse();
    }

    /**
     * A stored value this instance cannot read (written by a newer release, or unreadable): 503, since an upgraded
     * instance can answer; never a 500 or a guess. Logged, without the value.
     */
    @ServerExceptionMapper
    public Response storeFormat(StoreFormatException e) {
        LOG.errorf("a read found a value it cannot read: %s", e.getMessage());
        return ApiException.unavailable("this instance cannot read the stored state of " + e.store()
                + " (written by a newer release, or unreadable); try again shortly", STORE_FORMAT_RETRY_AFTER).toResponse();
    }

    @ServerExceptionMapper
    public Response webApplication(WebApplicationException e) {
        int status = e.getResponse().getStatus();
        if (status >= 500) {
            return unexpected(e);
        }
        String code = switch (status) {
            case 401 -> "unauthorized";
            case 403 -> "forbidden";
            case 404 -> "not_found";
            case 405 -> "method_not_allowed";
            case 406 -> "not_acceptable";
            case 409 -> "conflict";
            case 413 -> "too_large";
            case 415 -> "unsupported_media_type";
            case 429 -> "too_many_requests";
            default -> "bad_request";
        };
        return new ApiException(status, code, e.getResponse().getStatusInfo().getReasonPhrase()).toResponse();
    }

    @ServerExceptionMapper
    public Response unexpected(Exception e) {
        var registry = RegistryUnavailableException.in(e);
        if (registry.isPresent()) {
            return registryUnavailable(registry.get());
        }
        LOG.error("unexpected failure handling a request", e);
        return new ApiException(500, "internal", "an unexpected error; it was logged").toResponse();
    }
}
