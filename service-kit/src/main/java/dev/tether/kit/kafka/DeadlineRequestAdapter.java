package dev.tether.kit.kafka;

import com.microsoft.kiota.RequestInformation;
import io.kiota.http.vertx.VertXRequestAdapter;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.WebClient;
import java.net.URISyntaxException;

/**
 * Kiota's Vert.x request adapter (what the Apicurio registry client sends with), with a timeout on every request:
 * a request that gets no answer within it fails instead of leaving the caller in {@code CompletableFuture.get()}.
 */
final class DeadlineRequestAdapter extends VertXRequestAdapter {

    private final long requestTimeoutMillis;

    DeadlineRequestAdapter(WebClient client, long requestTimeoutMillis) {
        super(client);
        this.requestTimeoutMillis = requestTimeoutMillis;
    }

    @Override
    protected HttpRequest<Buffer> getRequestFromRequestInformation(RequestInformation requestInfo) throws URISyntaxException {
        return super.getRequestFromRequestInformation(requestInfo).timeout(requestTimeoutMillis);
    }
}
