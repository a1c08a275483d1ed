package dev.tether.tools;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Collects a response body up to a cap, then cancels the rest of it, so that a large or endless body is never read
 * whole. Its signals come one at a time, as the HTTP client guarantees.
 */
final class CappedBodySubscriber implements HttpResponse.BodySubscriber<CappedBodySubscriber.Body> {

    private final int cap;
    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
    private final CompletableFuture<Body> body = new CompletableFuture<>();
    private Flow.Subscription subscription;

    CappedBodySubscriber(int cap) {
        this.cap = cap;
    }

    @Override
    public CompletionStage<Body> getBody() {
        return body;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        this.subscription = subscription;
        subscription.request(1);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
        if (body.isDone()) {
            return;
        }
        for (ByteBuffer buffer : buffers) {
            int keep = Math.min(buffer.remaining(), cap - kept.size());
            byte[] bytes = new byte[keep];
            buffer.get(bytes);
            kept.write(bytes, 0, keep);
            if (buffer.hasRemaining()) {
                subscription.cancel();
                body.complete(new Body(kept.toByteArray(), true));
                return;
            }
        }
        subscription.request(1);
    }

    @Override
    public void onError(Throwable error) {
        body.completeExceptionally(error);
    }

    @Override
    public void onComplete() {
        body.complete(new Body(kept.toByteArray(), false));
    }

    /**
     * @param bytes     the body's first bytes, at most the cap
     * @param truncated whether there was more
     */
    record Body(byte[] bytes, boolean truncated) {}
}
