package dev.tether.executor.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.avro.AuthorizationBasis;
import dev.tether.avro.AuthorizationBasisKind;
import dev.tether.avro.ToolMode;
import dev.tether.avro.ToolRequest;
import dev.tether.tools.HttpFetchPolicy;
import dev.tether.tools.LedgerEntry;
import dev.tether.tools.Reconciliation;
import dev.tether.tools.Tool;
import dev.tether.tools.ToolContext;
import dev.tether.tools.ToolOutput;
import dev.tether.tools.ToolRegistry;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A custom tool that calls an external system (a ticket tracker, here a map) and counts its executions. It stores
 * each ticket under the call's idempotency key, so its reconcile can look the key up: found is done, missing is
 * not done. This is the SPI path an adapter for a real external system takes.
 */
class TicketTool implements Tool {
    static final String NAME = "create_ticket";

    final Map<String, String> external = new ConcurrentHashMap<>();
    final AtomicInteger executions = new AtomicInteger();

    /** A request for a ticket, as the projector emits one for call {@code callId} of {@code sessionId}, authorized by policy. */
    static ToolRequest request(String sessionId, String callId) {
        return ToolRequest.newBuilder()
                .setIdempotencyKey(sessionId + "/3/" + callId).setSessionId(sessionId).setTenantId("acme").setCallId(callId)
                .setTool(NAME).setArgumentsJson("{\"title\":\"disk full\"}").setRequestSeq(3).setAuthorizedSeq(4)
                .setBasis(new AuthorizationBasis(AuthorizationBasisKind.POLICY, null, null, null)).setToolMode(ToolMode.WRITE)
                .setHarnessVersion("v1").setRequestedAt(Instant.parse("2026-11-29T09:59:00Z"))
                .build();
    }

    ToolRegistry registry() {
        return ToolRegistry.builder().addBuiltIns(HttpFetchPolicy.denyAll()).add(this, dev.tether.core.event.ToolMode.WRITE).build();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean mutating() {
        return true;
    }

    @Override
    public boolean idempotent() {
        return false;
    }

    @Override
    public ToolOutput execute(ToolContext context, JsonNode arguments) {
        String id = "T-" + (100 + executions.incrementAndGet());
        external.put(context.idempotencyKey(), id);
        return context.output(ToolOutput.Status.OK, "ticket " + id);
    }

    @Override
    public Reconciliation reconcile(ToolContext context, JsonNode arguments, LedgerEntry started) {
        String id = external.get(started.idempotencyKey());
        return id == null
                ? new Reconciliation.NotApplied()
                : new Reconciliation.Completed(context.output(ToolOutput.Status.OK, "ticket " + id + " (found by its key)"));
    }
}
