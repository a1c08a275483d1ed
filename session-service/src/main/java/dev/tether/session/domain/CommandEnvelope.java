package dev.tether.session.domain;

import dev.tether.core.auth.TetherPrincipal;
import java.time.Instant;
import java.util.Objects;

/**
 * A command with who sent it and for which session.
 *
 * @param commandId unique; a repeated claim with the same commandId is a no-op
 * @param sessionId the session
 * @param tenantId  the caller's tenant; another tenant's session is "not found"
 * @param principal the authenticated caller
 * @param issuedAt  when it was issued
 * @param command   what to do
 */
public record CommandEnvelope(String commandId, String sessionId, String tenantId, TetherPrincipal principal, Instant issuedAt,
                              Command command) {
    public CommandEnvelope {
        Objects.requireNonNull(commandId, "commandId");
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(tenantId, "tenantId");
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(issuedAt, "issuedAt");
        Objects.requireNonNull(command, "command");
    }
}
