package dev.tether.executor.domain;

import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.ToolMode;
import dev.tether.core.policy.GatingPolicy;
import dev.tether.core.policy.PathGlob;
import dev.tether.tools.Tool;
import dev.tether.tools.ToolException;
import dev.tether.tools.ToolRegistry;
import dev.tether.tools.sandbox.Workspace;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * The policy enforcement point: whether an authorized call may run here and now, checked again by the executor
 * whatever the request says. A call runs only if its tool is in the registry of the session's tool mode and, when the
 * tool is gated for the session's tenant and mode, its basis is an approval; a session grant's path glob must still
 * cover the call's path right before it starts ({@link #outsideGrant}), and the approval of a call the approver was shown
 * holds only while the call would still do what they were shown ({@link #unlikeShown}). A basis this build does not know
 * never suffices. Immutable, thread-safe.
 */
public final class Authority {

    /** What a tool shows of a call as the workspace is now ({@link Tool#shown}). */
    @FunctionalInterface
    public interface ShownNow {
        String get() throws ToolException;
    }

    /** The answer for one call. */
    public sealed interface Verdict permits Allowed, Refused {}

    /** The call may run, with this tool. */
    public record Allowed(Tool tool) implements Verdict {}

    /** The call must not run; {@code reason} is for the model and the log. */
    public record Refused(String reason) implements Verdict {}

    private final ToolRegistry registry;
    private final GatingPolicy policy;

    public Authority(ToolRegistry registry, GatingPolicy policy) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    public ToolRegistry registry() {
        return registry;
    }

    /**
     * The tool of that name in any mode's registry, whatever a session's mode: what a STARTED call is reconciled with
     * even if its mode lost the tool. Empty if no mode has it.
     */
    public Optional<Tool> registered(String name) {
        return Arrays.stream(ToolMode.values()).map(mode -> registry.forMode(mode).find(name))
                .flatMap(Optional::stream).findFirst();
    }

    public Verdict check(String tenantId, ToolMode mode, String tool, AuthorizationBasis basis) {
        var found = registry.forMode(mode).find(tool);
        if (found.isEmpty()) {
            return new Refused("refused: tool '" + tool + "' is not available to " + mode + " sessions (available: "
                    + String.join(", ", registry.forMode(mode).names()) + ")");
        }
        switch (basis.kind()) {
            case UNKNOWN -> {
                return new Refused("refused: the call's authorization basis is of a kind this executor does not know");
            }
            case POLICY -> {
                if (policy.gated(tenantId, mode, tool)) {
                    return new Refused("refused: '" + tool + "' needs a human's approval in " + mode
                            + " sessions of this tenant, and the call has none");
                }
            }
            case APPROVAL -> {
                // an approval_granted event of this session authorizes it: the sequencer accepted the
                // tool_call_authorized only after that grant
            }
        }
        return new Allowed(found.get());
    }

    /**
     * Whether a call authorized by {@code basis} may act on its {@code path} argument now, checked right before it
     * starts: a basis with a path glob (a session grant's) covers the call only if its path as written and where that
     * leads in {@code workspace} at this moment both fall under the glob ({@link PathGlob#covers}). The approval-service
     * checked the same when it authorized the call, but a link made since (by a command the session ran in between) may
     * lead the path elsewhere now. A glob this executor cannot parse covers nothing; a basis without one limits no path.
     *
     * @param path the call's {@code path} argument, null if it has none (or not a string)
     * @return empty if the call may go on; else the refusal
     */
    public static Optional<Refused> outsideGrant(AuthorizationBasis basis, String path, Workspace workspace) {
        if (basis.pathGlob() == null) {
            return Optional.empty();
        }
        String grant = "the session grant at seq " + basis.approvalSeq() + " that authorized it covers only paths under '"
                + basis.pathGlob() + "'";
        PathGlob glob;
        try {
            glob = PathGlob.parse(basis.pathGlob());
        } catch (PathGlob.InvalidGlobException e) {
            return Optional.of(new Refused("refused: " + grant + ", a glob this executor cannot read (it " + e.getMessage()
                    + "); nothing was run"));
        }
        if (path == null) {
            return Optional.of(new Refused("refused: " + grant + ", and the call has no path; nothing was run"));
        }
        if (!glob.covers(path, workspace.leadsTo(path).orElse(null))) {
            return Optional.of(new Refused("refused: " + grant + ", and '" + path + "' leads outside it now"
                    + " (through a link made since the call was authorized); nothing was run. Ask for an approval of this"
                    + " call if it is still needed."));
        }
        return Optional.empty();
    }

    /**
     * Whether the call would still do what its approver was shown, checked right before it starts: a basis carrying the
     * hash of what they were shown (the approval of this very call) holds only if the tool shows the same now
     * ({@link Tool#shown} against the workspace at this moment, {@code shownNow}). The file a {@code write_file} replaces or an
     * {@code edit_file} changes may have changed since the approval was asked for (another call of the session ran
     * meanwhile), and the change the approver agreed to is then not the change the call would make. A preview that
     * cannot be worked out now refuses the call too. A basis without the hash (a policy, a session grant's later call, an
     * approval-service before it) compares nothing.
     *
     * @param shownNow works out what the tool shows of the call now; asked only if the basis carries a hash
     * @return empty if the call may go on; else the refusal
     */
    public static Optional<Refused> unlikeShown(AuthorizationBasis basis, ShownNow shownNow) {
        if (basis.shownSha256() == null) {
            return Optional.empty();
        }
        String approval = "the approval at seq " + basis.approvalSeq();
        String shown;
        try {
            shown = shownNow.get();
        } catch (ToolException | RuntimeException e) {
            // a ToolException's message names the argument and holds no secret; anything else's may hold anything
            String why = e instanceof ToolException ? e.getMessage() : e.getClass().getSimpleName();
            return Optional.of(new Refused("refused: what the call would do cannot be worked out again to compare it with what "
                    + approval + " was given on (" + why + "); nothing was run"));
        }
        if (shown != null && Tool.shownSha256(shown).equals(basis.shownSha256())) {
            return Optional.empty();
        }
        return Optional.of(new Refused("refused: the call would no longer do what its approver was shown when " + approval
                + " was given: the workspace changed since (another call of the session, say), and what the call would do now is"
                + " not what was approved; nothing was run. Ask for an approval of this call again if it is still needed."));
    }
}
