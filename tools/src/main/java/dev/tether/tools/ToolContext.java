package dev.tether.tools;

import dev.tether.core.blob.BlobOffloader;
import dev.tether.core.secrets.Scrubbed;
import dev.tether.tools.sandbox.CommandRunner;
import dev.tether.tools.sandbox.OutputRedactor;
import dev.tether.tools.sandbox.SecretProvider;
import dev.tether.tools.sandbox.SecretResolver;
import dev.tether.tools.sandbox.UnknownSecretException;
import dev.tether.tools.sandbox.Workspace;
import java.util.Objects;

/**
 * What a tool gets for one call. Make one per call: its redactor collects the secrets the call resolves, so use it
 * for anything written about the call afterwards (an error message, a log line).
 *
 * @param workspace      the session's workspace, never null
 * @param runner         runs commands, never null
 * @param redactor       this call's redactor, never null
 * @param secrets        resolves {@code secret://} references, never null
 * @param offloader      stores content too large for an event, never null
 * @param tenantId       whose blobs offloaded content becomes, never null
 * @param idempotencyKey the key to hand external systems for the call (the executor's {@code IdempotencyKey.external}: the
 *                       call's key, {@code ~} and the session's start in epoch ms; under a reconciliation, the key its start
 *                       handed out); never null
 * @param cancellation   cancelled when the call must stop, never null
 */
public record ToolContext(
        Workspace workspace,
        CommandRunner runner,
        OutputRedactor redactor,
        SecretProvider secrets,
        BlobOffloader offloader,
        String tenantId,
        String idempotencyKey,
        CancellationToken cancellation) {

    public ToolContext {
        Objects.requireNonNull(workspace, "workspace");
        Objects.requireNonNull(runner, "runner");
        Objects.requireNonNull(redactor, "redactor");
        Objects.requireNonNull(secrets, "secrets");
        Objects.requireNonNull(offloader, "offloader");
        Objects.requireNonNull(tenantId, "tenantId");
        Objects.requireNonNull(idempotencyKey, "idempotencyKey");
        Objects.requireNonNull(cancellation, "cancellation");
    }

    /** A result without file hashes; see {@link #output(ToolOutput.Status, String, String, String)}. */
    public ToolOutput output(ToolOutput.Status status, String rawContent) {
        return output(status, rawContent, null, null);
    }

    /**
     * The one way tools make results: {@code rawContent} is redacted, then offloaded if large.
     *
     * @param rawContent what the tool captured, never null
     * @param beforeHash for file tools, the file's hash before; else null
     * @param afterHash  for file tools, the file's hash after; else null
     */
    public ToolOutput output(ToolOutput.Status status, String rawContent, String beforeHash, String afterHash) {
        Scrubbed redacted = redactor.redact(rawContent);
        BlobOffloader.Offloaded content = offloader.offload(tenantId, redacted.text());
        return new ToolOutput(status, content.text(), content.ref(), beforeHash, afterHash);
    }

    /**
     * {@code value} with its {@code secret://} references resolved, their values registered with {@link #redactor()}.
     * The result holds secret values: pass it only to the process or request that needs them.
     *
     * @param argument the name of the argument {@code value} comes from, for the error
     * @throws ToolException naming the argument and the unknown reference
     */
    public String resolveSecrets(String argument, String value) throws ToolException {
        try {
            return new SecretResolver(secrets, redactor).resolveIn(value);
        } catch (UnknownSecretException e) {
            throw ToolException.invalidArgument(argument, e.getMessage());
        }
    }
}
