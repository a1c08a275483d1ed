package dev.tether.cli.commands;

import dev.tether.cli.CliException;
import dev.tether.cli.Converters;
import dev.tether.cli.Role;
import dev.tether.cli.TetherCli;
import dev.tether.cli.output.Fields;
import dev.tether.cli.output.Output;
import dev.tether.cli.output.Table;
import dev.tether.client.AlreadyDecided;
import dev.tether.client.Approval;
import dev.tether.client.ApprovalDecision;
import dev.tether.client.ApprovalFilter;
import dev.tether.client.Decided;
import dev.tether.client.DecisionResult;
import dev.tether.client.NotFound;
import dev.tether.client.Rejected;
import dev.tether.client.TetherClient;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code tether approvals}: the approval-service's items, as an approver of the token's tenant. */
@Command(name = "approvals", mixinStandardHelpOptions = true,
        description = {"List, show and decide what waits for a human: gated tool calls (grant or deny) and calls whose outcome "
                + "is unknown (mark-done, retry or abandon).",
                "Decisions are recorded in the approver's name and never retried: if an answer is lost, 'approvals show' tells "
                        + "whether the decision took."})
public final class ApprovalsCommand {

    /** The statuses {@code --status} takes: an item's, or ALL. */
    enum StatusFilter { PENDING, GRANTED, DENIED, EXPIRED, CANCELLED, MARKED_DONE, RETRIED, ABANDONED, ALL }

    /** {@code --requested-at}: the item as the approver read it, for every decision. */
    static final class AsRead {
        @Option(names = "--requested-at", paramLabel = "<instant>",
                description = "decide only on the item requested at this instant (its 'requested' in 'approvals show'): if its id "
                        + "names another call now (its session was erased and made again under its id), nothing is decided")
        String requestedAt;
    }

    @ParentCommand
    TetherCli cli;

    @Spec
    CommandSpec spec;

    @Command(name = "list", mixinStandardHelpOptions = true, description = "The tenant's items, oldest first.")
    int list(@Option(names = "--status", paramLabel = "<status>", defaultValue = "PENDING",
                     description = "PENDING (the default), GRANTED, DENIED, EXPIRED, CANCELLED, MARKED_DONE, RETRIED, ABANDONED or ALL")
             StatusFilter status,
             @Option(names = "--kind", paramLabel = "APPROVAL|UNKNOWN_OUTCOME", description = "only items of this kind")
             ApprovalFilter.Kind kind) {
        Output out = cli.output();
        ApprovalFilter filter = status == StatusFilter.ALL ? ApprovalFilter.all() : ApprovalFilter.status(ApprovalFilter.Status.valueOf(status.name()));
        if (kind != null) {
            filter = filter.ofKind(kind);
        }
        List<Approval> items;
        try (TetherClient tether = cli.client(Role.APPROVER)) {
            items = tether.approvals(filter);
        }
        if (out.json()) {
            var n = Output.object();
            var list = n.putArray("approvals");
            items.forEach(i -> list.add(Output.parse(i.json())));
            out.print(n);
            return 0;
        }
        if (items.isEmpty()) {
            out.note(status == StatusFilter.ALL ? "no approvals" : "no " + status.name() + " approvals");
            return 0;
        }
        Table table = Table.of("ID", "KIND", "STATUS", "TOOL", "CALL", "REQUESTED", "DECIDED", "SHOWN");
        items.forEach(i -> table.row(i.id(), i.kind(), i.status(), i.tool(), i.callId(), i.requestedAt(), decided(i), Views.clip(i.shown(), 48)));
        out.print(table);
        return 0;
    }

    @Command(name = "show", mixinStandardHelpOptions = true, description = "One item, with the whole command or diff shown to approvers.")
    int show(@Parameters(paramLabel = "<id>", converter = Converters.ApprovalId.class, description = "the item's id, <sessionId>~<seq>") String id) {
        Output out = cli.output();
        Approval item;
        try (TetherClient tether = cli.client(Role.APPROVER)) {
            item = tether.approval(id).orElseThrow(() -> notFound(id));
        }
        if (out.json()) {
            out.print(Output.parse(item.json()));
            return 0;
        }
        out.print(fields(item));
        return 0;
    }

    @Command(name = "grant", mixinStandardHelpOptions = true,
            description = {"Grant a pending call: once (the default), or for the session with --session, then later calls of the "
                    + "same tool run without asking, optionally only on paths matching --path-glob."})
    int grant(@Parameters(paramLabel = "<id>", converter = Converters.ApprovalId.class, description = "the item's id, <sessionId>~<seq>") String id,
              @Option(names = "--session", description = "grant for the rest of the session, not only this call") boolean session,
              @Option(names = "--tool", paramLabel = "<tool>", description = "with --session: the tool the grant covers (the call's own)")
              String tool,
              @Option(names = "--path-glob", paramLabel = "<glob>", description = "with --session: the paths it covers, e.g. 'src/**'")
              String pathGlob,
              @Option(names = "--reason", required = true, paramLabel = "<text>", description = "why; recorded with the decision")
              String reason,
              @Mixin AsRead asRead) {
        if (!session && (tool != null || pathGlob != null)) {
            throw new ParameterException(spec.subcommands().get("grant"), "--tool and --path-glob narrow a session grant: add --session");
        }
        if (tool != null && tool.isBlank() || pathGlob != null && pathGlob.isBlank()) {
            throw new ParameterException(spec.subcommands().get("grant"), (tool != null && tool.isBlank() ? "--tool" : "--path-glob")
                    + " must not be blank: leave it out for a grant of the call's tool on any path");
        }
        if (!session) {
            return decide(id, asRead, ApprovalDecision.grantOnce(reason), "granted");
        }
        if (tool == null && pathGlob == null) {
            return decide(id, asRead, ApprovalDecision.grantSession(reason), "granted");
        }
        // the SDK's grantSession takes a tool only together with a path glob, and a session grant covers the call's own
        // tool anyway: read the item for its tool
        return decide(id, asRead, "granted", read -> {
            Approval item = read.get();
            if (tool != null && !tool.equals(item.tool())) {
                throw new CliException("a session grant covers the decided call's tool '" + item.tool() + "', not '" + tool + "'");
            }
            return pathGlob == null ? ApprovalDecision.grantSession(reason) : ApprovalDecision.grantSession(item.tool(), pathGlob, reason);
        });
    }

    @Command(name = "deny", mixinStandardHelpOptions = true, description = "Refuse a pending call; the reason is what the model is told.")
    int deny(@Parameters(paramLabel = "<id>", converter = Converters.ApprovalId.class) String id,
             @Option(names = "--reason", required = true, paramLabel = "<text>", description = "why (required)") String reason,
             @Mixin AsRead asRead) {
        if (reason.isBlank()) {
            throw new ParameterException(spec.subcommands().get("deny"), "--reason must not be blank");
        }
        return decide(id, asRead, ApprovalDecision.deny(reason), "denied");
    }

    @Command(name = "mark-done", mixinStandardHelpOptions = true,
            description = "An unknown outcome: the call did take effect; count it as succeeded.")
    int markDone(@Parameters(paramLabel = "<id>", converter = Converters.ApprovalId.class) String id,
                 @Option(names = "--reason", required = true, paramLabel = "<text>", description = "why; e.g. what you checked") String reason,
                 @Mixin AsRead asRead) {
        return decide(id, asRead, ApprovalDecision.markDone(reason), "marked done");
    }

    @Command(name = "retry", mixinStandardHelpOptions = true,
            description = "An unknown outcome: the call did not take effect; run it once more, under a new idempotency key.")
    int retry(@Parameters(paramLabel = "<id>", converter = Converters.ApprovalId.class) String id,
              @Option(names = "--reason", required = true, paramLabel = "<text>", description = "why; e.g. what you checked") String reason,
              @Mixin AsRead asRead) {
        return decide(id, asRead, ApprovalDecision.retry(reason), "retried");
    }

    @Command(name = "abandon", mixinStandardHelpOptions = true,
            description = "An unknown outcome: give the call up; it counts as cancelled.")
    int abandon(@Parameters(paramLabel = "<id>", converter = Converters.ApprovalId.class) String id,
                @Option(names = "--reason", required = true, paramLabel = "<text>", description = "why") String reason,
                @Mixin AsRead asRead) {
        return decide(id, asRead, ApprovalDecision.abandon(reason), "abandoned");
    }

    private int decide(String id, AsRead asRead, ApprovalDecision decision, String done) {
        return decide(id, asRead, done, read -> decision);
    }

    /**
     * Records the decision {@code decision} makes (it may read the item first, from the supplier it is given, which reads
     * it once), and prints the item after it. With {@code --requested-at}, only on the item requested then: it is read
     * first, and the decision is pinned to it.
     */
    private int decide(String id, AsRead asRead, String done, Function<Supplier<Approval>, ApprovalDecision> decision) {
        Instant seen = asRead.requestedAt == null ? null : requestedAt(asRead.requestedAt);
        Output out = cli.output();
        DecisionResult result;
        try (TetherClient tether = cli.client(Role.APPROVER)) {
            Approval[] read = {null};
            Supplier<Approval> item = () -> read[0] != null ? read[0] : (read[0] = tether.approval(id).orElseThrow(() -> notFound(id)));
            if (seen == null) {
                result = tether.decide(id, decision.apply(item));
            } else {
                if (!seen.equals(item.get().requestedAt())) {
                    throw anotherCall(id, item.get().requestedAt(), seen);
                }
                result = tether.decide(item.get(), decision.apply(item));
            }
        }
        if (result instanceof NotFound && seen != null) {
            throw anotherCall(id, null, seen); // changed between the read and the decision, or erased
        }
        if (result instanceof NotFound) {
            throw notFound(id);
        }
        if (result instanceof AlreadyDecided a) {
            throw new CliException(id + " is no longer pending (" + a.code() + "): " + a.message() + "; 'tether approvals show " + id
                    + "' tells how it ended");
        }
        if (result instanceof Rejected r) {
            throw Views.refused("the decision on " + id, r);
        }
        Approval item = ((Decided) result).approval();
        if (out.json()) {
            out.print(Output.parse(item.json()));
        } else {
            out.line(done + " " + id + ": " + item.status() + item.decision().map(d -> " (" + decision(d) + ")").orElse(""));
        }
        return 0;
    }

    private Instant requestedAt(String text) {
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw new ParameterException(decidingCommand(), "--requested-at must be an instant such as 2026-12-05T09:30:00.123Z, not '"
                    + text + "'");
        }
    }

    /** The decision's own command ({@code approvals deny}...), which a usage error names; {@code spec} is {@code approvals}. */
    private picocli.CommandLine decidingCommand() {
        picocli.CommandLine.ParseResult parsed = spec.root().commandLine().getParseResult();
        while (parsed != null && parsed.hasSubcommand()) {
            parsed = parsed.subcommand();
        }
        return parsed == null ? spec.commandLine() : parsed.commandSpec().commandLine();
    }

    private static CliException anotherCall(String id, Instant now, Instant seen) {
        return new CliException(id + " is not the item requested at " + seen + (now == null ? "" : ": that one was requested at " + now)
                + " (its session was erased, or made again under its id); nothing was decided. 'tether approvals show " + id
                + "' shows what it is now");
    }

    private static Fields fields(Approval i) {
        return Fields.of()
                .add("id", i.id())
                .add("kind", i.kind())
                .add("status", i.status() + (i.decisions().isEmpty() ? "" : " (decide with: " + String.join(", ", i.decisions()) + ")"))
                .add("session", i.sessionId())
                .add("call", i.callId() + " " + i.tool() + " " + i.argumentsJson())
                .add("requested", i.requestedAt() + " by " + i.requestedBy() + " (" + i.modelId() + ", seq " + i.requestSeq() + ")")
                .add("expires", i.expiresAt().orElse(null))
                .add("outcome", i.outcome().orElse(null))
                .add("run by", i.runBy().map(ApprovalsCommand::runner).orElse(null))
                .add("path glob", i.suggestedPathGlob().map(g -> g + " (suggested for a session grant)").orElse(null))
                .add("decision", i.decision().map(ApprovalsCommand::decision).orElse(null))
                .add("ended", i.endedBecause().orElse(null))
                .add("shown", i.shown());
    }

    private static String runner(String runBy) {
        return switch (runBy) {
            case "EXECUTOR" -> "EXECUTOR (Tether's tool-executor)";
            case "HARNESS" -> "HARNESS (the session's harness; a session grant of it takes no path glob)";
            default -> runBy;
        };
    }

    private static String decided(Approval i) {
        return i.decision().map(d -> d.decision() + " by " + d.approver()).orElse(i.endedBecause().orElse(null));
    }

    private static String decision(Approval.Decision d) {
        return d.decision() + d.tool().map(t -> " " + t).orElse("") + d.pathGlob().map(g -> " " + g).orElse("") + " by " + d.approver()
                + " at seq " + d.seq() + (d.reason().isBlank() ? "" : ": " + d.reason());
    }

    private static CliException notFound(String id) {
        return new CliException("approval " + id + " not found (ids are <sessionId>~<seq>; another tenant's items are not visible)");
    }
}
