package dev.tether.kit.kafka;

import com.microsoft.kiota.ApiException;
import io.apicurio.registry.resolver.client.RegistryArtifactReference;
import io.apicurio.registry.resolver.client.RegistryClientFacade;
import io.apicurio.registry.resolver.client.RegistryVersionCoordinates;
import io.apicurio.registry.resolver.strategy.ArtifactReference;
import io.vertx.core.VertxException;
import java.io.IOException;
import java.net.ConnectException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The registry client the serdes use, telling a registry that does not answer apart from one that does: a refused or
 * closed connection, a call past its deadline or a server error becomes {@link RegistryUnavailableException} (and the
 * connection's status says unreachable); a definite answer (found, not found, refused by a rule) passes as it is.
 */
final class GuardedRegistryClient implements RegistryClientFacade {

    private final RegistryClientFacade delegate;
    private final RegistryConnection connection;

    GuardedRegistryClient(RegistryClientFacade delegate, RegistryConnection connection) {
        this.delegate = delegate;
        this.connection = connection;
    }

    private <T> T call(Supplier<T> call) {
        try {
            T answer = call.get();
            connection.answered("answered");
            return answer;
        } catch (RuntimeException e) {
            if (!unavailable(e)) {
                connection.answered("answered: " + e.getMessage());
                throw e;
            }
            var unavailable = new RegistryUnavailableException(connection.settings().url(), describe(e, connection.settings()), e);
            connection.failed(unavailable);
            throw unavailable;
        }
    }

    /** Whether {@code error} means the registry gave no answer (as opposed to an answer that is an error). */
    static boolean unavailable(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof ApiException api) {
                return api.getResponseStatusCode() >= 500;
            }
            if (t instanceof IOException || t instanceof TimeoutException || t instanceof VertxException) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    /** What went wrong, in words: "did not answer within 5 s", "refused the connection", ... */
    static String describe(Throwable error, RegistrySettings settings) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof ApiException api && api.getResponseStatusCode() >= 500) {
                return "answered HTTP " + api.getResponseStatusCode();
            }
            if (t instanceof TimeoutException || t.getClass().getSimpleName().contains("Timeout")) {
                return "did not answer within its deadline (connect " + settings.connectTimeout().toMillis() + " ms, request "
                        + settings.requestTimeout().toMillis() + " ms): " + t.getMessage();
            }
            if (t instanceof ConnectException) {
                return "refused the connection: " + t.getMessage();
            }
            if (t.getCause() == null || t.getCause() == t) {
                return "is not reachable: " + t;
            }
        }
        return "is not reachable";
    }

    @Override
    public String getSchemaByContentId(Long contentId) {
        return call(() -> delegate.getSchemaByContentId(contentId));
    }

    @Override
    public String getSchemaByGlobalId(long globalId, boolean dereferenced) {
        return call(() -> delegate.getSchemaByGlobalId(globalId, dereferenced));
    }

    @Override
    public String getSchemaByGAV(String groupId, String artifactId, String version) {
        return call(() -> delegate.getSchemaByGAV(groupId, artifactId, version));
    }

    @Override
    public String getSchemaByContentHash(String contentHash) {
        return call(() -> delegate.getSchemaByContentHash(contentHash));
    }

    @Override
    public List<RegistryArtifactReference> getReferencesByContentId(long contentId) {
        return call(() -> delegate.getReferencesByContentId(contentId));
    }

    @Override
    public List<RegistryArtifactReference> getReferencesByGlobalId(long globalId) {
        return call(() -> delegate.getReferencesByGlobalId(globalId));
    }

    @Override
    public List<RegistryArtifactReference> getReferencesByGAV(String groupId, String artifactId, String version) {
        return call(() -> delegate.getReferencesByGAV(groupId, artifactId, version));
    }

    @Override
    public List<RegistryArtifactReference> getReferencesByContentHash(String contentHash) {
        return call(() -> delegate.getReferencesByContentHash(contentHash));
    }

    @Override
    public List<RegistryVersionCoordinates> searchVersionsByContent(String schema, String artifactType, ArtifactReference reference,
                                                                    boolean canonical) {
        return call(() -> delegate.searchVersionsByContent(schema, artifactType, reference, canonical));
    }

    @Override
    public RegistryVersionCoordinates createSchema(String artifactType, String groupId, String artifactId, String version,
                                                   String ifExists, boolean canonical, String schema,
                                                   Set<RegistryArtifactReference> references) {
        return call(() -> delegate.createSchema(artifactType, groupId, artifactId, version, ifExists, canonical, schema, references));
    }

    @Override
    public RegistryVersionCoordinates getVersionCoordinatesByGAV(String groupId, String artifactId, String version) {
        return call(() -> delegate.getVersionCoordinatesByGAV(groupId, artifactId, version));
    }

    @Override
    public Object getClient() {
        return delegate.getClient();
    }
}
