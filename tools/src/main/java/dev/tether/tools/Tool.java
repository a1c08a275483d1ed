package dev.tether.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.tools.sandbox.Workspace;
import java.nio.charset.StandardCharsets;

/**
 * A tool a model can call. The executor runs each call exactly once through this interface: it asks for the call's
 * {@link #intent}, records it in its ledger as STARTED, runs {@link #execute(ToolContext, JsonNode, Intent)}, and
 * records the result. When it finds a STARTED call without an end (a crash), it asks {@link #reconcile} what became
 * of it.
 *
 * <p>Implementations are stateless or thread-safe: one instance serves every session. Arguments are never null.
 */
public interface Tool {

    /** The name models call it by: lower-case letters, digits and {@code _}, starting with a letter. */
    String name();

    /** Whether it changes the workspace or the world; a mutating tool is only ever in the WRITE registry. */
    boolean mutating();

    /** Whether running it again is harmless, as for tools that only read. */
    boolean idempotent();

    /**
     * What the call is going to change, computed without changing anything, for the ledger's STARTED entry. File
     * tools return the file's hash now and the hash it will have after the call; others return {@link Intent#NONE}.
     *
     * @throws ToolException if the arguments are invalid: the call would fail, and should not be started
     */
    default Intent intent(ToolContext context, JsonNode arguments) throws ToolException {
        return Intent.NONE;
    }

    /**
     * What an approver must see to decide on the call, worked out now without changing anything: the whole command
     * exactly as written for {@code run_command}; for {@code edit_file} and {@code write_file}, the unified diff
     * against the workspace as it is, which is the diff the call reports when it runs on that content; the method,
     * URL and headers for {@code http_fetch}. {@code secret://} references are shown as written, never resolved. The
     * default shows the tool's name and its arguments.
     *
     * @param workspace the session's workspace ({@code WorkspaceRoot.open(sessionId)}); read, never written
     * @param arguments the call's arguments, as the model gave them
     * @return the text to show, never null
     * @throws ToolException if the arguments are invalid or refused, naming the argument: the call would fail anyway
     */
    default String shown(Workspace workspace, JsonNode arguments) throws ToolException {
        return name() + " " + arguments;
    }

    /**
     * The SHA-256 (lower-case hex) of {@code shown}'s UTF-8 bytes: what {@code approval_requested} and the basis of the
     * call's approval carry of what an approver was shown, which the executor compares with {@link #shown} again right
     * before the call starts.
     */
    static String shownSha256(String shown) {
        return FileHash.of(shown.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Runs the call.
     *
     * @param arguments the call's arguments, a JSON object
     * @return the result, its content already redacted and, if large, offloaded; never null
     * @throws ToolException if the arguments are invalid or refused, or the tool could not do its work; the message
     *     names the argument at fault and holds neither secrets nor file content
     */
    ToolOutput execute(ToolContext context, JsonNode arguments) throws ToolException;

    /**
     * Runs the call whose STARTED entry recorded {@code started}, as the executor does. A tool whose intent names the
     * state it changes (the file tools: the file's hash before) makes its change from that state only, so a call run
     * twice (by an instance that resumed after its partition moved on, and by the one that took the call over:
     * docs/ARCHITECTURE.md §6) changes the world once. The default runs {@link #execute(ToolContext, JsonNode)}.
     *
     * @param started the intent {@link #intent} answered for the call's STARTED entry, never null
     */
    default ToolOutput execute(ToolContext context, JsonNode arguments, Intent started) throws ToolException {
        return execute(context, arguments);
    }

    /**
     * What happened to a call recorded as STARTED whose end is unknown, found by looking at the world, not by running
     * the call. Never throws: what cannot be checked is {@link Reconciliation.Unknown}.
     *
     * @param started what the executor recorded before it ran the call
     */
    Reconciliation reconcile(ToolContext context, JsonNode arguments, LedgerEntry started);
}
