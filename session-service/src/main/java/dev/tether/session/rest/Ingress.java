package dev.tether.session.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.tether.core.blob.BlobOffloader;
import dev.tether.core.blob.BlobStore;
import dev.tether.core.event.ApprovalRequested;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.ContextCompacted;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.FrameworkState;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.UserMessage;
import dev.tether.core.secrets.SecretScrubber;
import dev.tether.kit.kafka.NominatingBlobStore;
import dev.tether.kit.service.ServiceKafka;
import dev.tether.session.config.SessionServiceConfig;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * What every request body goes through before anything reaches Kafka: secrets are scrubbed from
 * every string (values and field names), then content over the threshold is offloaded to the
 * blob store and replaced by its preview and a reference.
 */
@ApplicationScoped
public class Ingress {

    private static final SecretScrubber SCRUBBER = SecretScrubber.standard();

    /** A tool call's arguments ({@code ToolCall.argumentsJson}): JSON text. */
    private static final String ARGUMENTS = "argumentsJson";

    private static final String CONTENT = "content";

    /**
     * The events whose {@code content} is JSON text, or often is: a {@code framework_state}'s always, a tool's result
     * whenever the tool answers in JSON (most do), a message when a model answers in a structured format.
     */
    private static final Set<String> CONTENT_MAY_BE_JSON = Set.of(FrameworkState.TYPE, ToolResult.TYPE, AssistantMessage.TYPE, UserMessage.TYPE);

    private final NominatingBlobStore blobs;
    private final BlobOffloader offloader;

    /** Every blob put is nominated for deletion, kept while a session refers to it: content of a refused append goes too. */
    Ingress(SessionServiceConfig config, ServiceKafka kafka) {
        this.blobs = kafka.nominatingBlobStore(config.blobs().dir(), "tether-session-service-blobs");
        this.offloader = new BlobOffloader(blobs, config.blobs().threshold(), config.blobs().previewChars());
    }

    @PreDestroy
    void close() {
        blobs.close();
    }

    public BlobStore blobs() {
        return blobs;
    }

    /**
     * Scrubs every string of {@code body} in place; returns how many secrets were redacted. A tool call's arguments
     * and the content of a {@code framework_state}, a tool result or a message stay JSON text if they are
     * ({@link JsonTextScrubbing}): scrubbed as text, an argument such as {@code "api_key": 1234} would become no JSON,
     * which the call's runner could not read, nor the model or the harness a tool's result.
     */
    public int scrub(JsonNode body) {
        return scrubTree(body);
    }

    /** {@link #scrub}, which needs no blob store. */
    static int scrubTree(JsonNode body) {
        if (body instanceof ObjectNode object) {
            int count = 0;
            String type = object.path("type").textValue();
            boolean contentMayBeJson = type != null && CONTENT_MAY_BE_JSON.contains(type);
            var renamed = new ArrayList<Map.Entry<String, JsonNode>>();
            for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
                var field = it.next();
                var name = SCRUBBER.scrub(field.getKey());
                boolean jsonText = contentMayBeJson && field.getKey().equals(CONTENT) || field.getKey().equals(ARGUMENTS);
                if (jsonText && field.getValue().isTextual()) {
                    var scrubbed = JsonTextScrubbing.scrub(SCRUBBER, field.getValue().textValue());
                    if (scrubbed.redactedAny()) {
                        object.put(field.getKey(), scrubbed.text());
                    }
                    count += scrubbed.redactions();
                    continue;
                }
                count += scrubValue(object, field.getKey(), field.getValue());
                if (name.redactions() > 0) {
                    count += name.redactions();
                    renamed.add(Map.entry(name.text(), object.get(field.getKey())));
                    it.remove();
                }
            }
            renamed.forEach(e -> object.set(e.getKey(), e.getValue()));
            return count;
        }
        if (body instanceof ArrayNode array) {
            int count = 0;
            for (int i = 0; i < array.size(); i++) {
                JsonNode element = array.get(i);
                if (element.isTextual()) {
                    var scrubbed = SCRUBBER.scrub(element.asText());
                    array.set(i, TextNode.valueOf(scrubbed.text()));
                    count += scrubbed.redactions();
                } else {
                    count += scrubTree(element);
                }
            }
            return count;
        }
        return 0;
    }

    private static int scrubValue(ObjectNode parent, String name, JsonNode value) {
        if (value.isTextual()) {
            var scrubbed = SCRUBBER.scrub(value.asText());
            if (scrubbed.redactions() > 0) {
                parent.put(name, scrubbed.text());
            }
            return scrubbed.redactions();
        }
        return scrubTree(value);
    }

    /** The payload with its large content offloaded for {@code tenantId}. */
    public EventPayload offload(String tenantId, EventPayload payload) {
        if (payload instanceof UserMessage m) {
            var o = offloader.offload(tenantId, m.content());
            return o.offloaded() ? new UserMessage(o.text(), o.ref()) : m;
        }
        if (payload instanceof AssistantMessage m) {
            var o = offloader.offload(tenantId, m.content());
            return o.offloaded() ? new AssistantMessage(o.text(), o.ref(), m.toolCalls(), m.usage()) : m;
        }
        if (payload instanceof ToolResult r) {
            var o = offloader.offload(tenantId, r.content());
            return o.offloaded() ? new ToolResult(r.callId(), r.idempotencyKey(), r.status(), o.text(), o.ref()) : r;
        }
        if (payload instanceof ApprovalRequested r) {
            var o = offloader.offload(tenantId, r.shown());
            return o.offloaded() ? r.withShown(o.text(), o.ref()) : r;
        }
        if (payload instanceof FrameworkState f) {
            var o = offloader.offload(tenantId, f.content());
            return o.offloaded() ? new FrameworkState(f.framework(), f.kind(), f.key(), o.text(), o.ref()) : f;
        }
        if (payload instanceof ContextCompacted c) {
            var o = offloader.offload(tenantId, c.summary());
            return o.offloaded() ? new ContextCompacted(c.throughSeq(), o.text(), o.ref(), c.summarySourceSeqs()) : c;
        }
        return payload;
    }
}
