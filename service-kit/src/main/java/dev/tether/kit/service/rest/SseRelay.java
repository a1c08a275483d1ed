package dev.tether.kit.service.rest;

import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.Flow;

/**
 * An event stream ({@code text/event-stream}) of another service or instance, passed on as this one's: the projector
 * relays the session-service's live stream to the session explorer, and a session-service instance relays the one of
 * the instance that holds the session ({@link OwnerRouting#streamFromOwner}). Stateless.
 */
public final class SseRelay {

    private SseRelay() {}

    /**
     * The events of {@code request}'s stream as they arrive, opened when subscribed to. Fails (an {@link IOException}
     * naming {@code source}) if the answer is anything but 200, and ends when the stream ends; cancelling the
     * subscription closes the connection.
     */
    public static Multi<SseReader.Frame> open(HttpClient http, HttpRequest request, String source) {
        return Uni.createFrom().completionStage(() -> http.sendAsync(request, HttpResponse.BodyHandlers.ofPublisher()))
                .onItem().transformToMulti(response -> {
                    if (response.statusCode() != 200) {
                        discard(response.body());
                        return Multi.createFrom().failure(new IOException(source + " answered " + response.statusCode()));
                    }
                    var reader = new SseReader();
                    return Multi.createFrom().publisher(response.body())
                            .onItem().transformToIterable((List<ByteBuffer> chunks) -> reader.read(chunks));
                });
    }

    /** {@code frame} as an event of this service's stream: the same id, name and data. */
    public static OutboundSseEvent event(Sse sse, SseReader.Frame frame) {
        OutboundSseEvent.Builder event = sse.newEventBuilder().data(frame.data());
        if (frame.id() != null) {
            event.id(frame.id());
        }
        if (frame.event() != null) {
            event.name(frame.event());
        }
        return event.build();
    }

    /** Reads and drops a body nobody wants, so that the connection is released. */
    private static void discard(Flow.Publisher<List<ByteBuffer>> body) {
        body.subscribe(new Flow.Subscriber<>() {
            @Override
            public void onSubscribe(Flow.Subscription subscription) {
                subscription.cancel();
            }

            @Override
            public void onNext(List<ByteBuffer> item) {}

            @Override
            public void onError(Throwable throwable) {}

            @Override
            public void onComplete() {}
        });
    }
}
