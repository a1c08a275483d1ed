package dev.tether.cli.commands;

import dev.tether.cli.Converters;
import dev.tether.cli.Role;
import dev.tether.cli.TetherCli;
import dev.tether.cli.output.Fields;
import dev.tether.cli.output.Output;
import dev.tether.client.ReadAt;
import dev.tether.client.RecoveryReport;
import dev.tether.client.RecoveryReport.Call;
import dev.tether.client.TetherClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code tether recovery}: what a worker taking a session over must know before it acts. */
@Command(name = "recovery", mixinStandardHelpOptions = true,
        description = "The session's recovery report: identity and pins, position, what its tool calls did (confirmed, cancelled, "
                + "unknown, in flight), the authority in force or pending, and the next safe actions.")
public final class RecoveryCommand implements Callable<Integer> {

    @ParentCommand
    TetherCli cli;

    @Parameters(paramLabel = "<sessionId>", converter = Converters.SessionId.class)
    String sessionId;

    @Option(names = "--min-seq", paramLabel = "<seq>", converter = Converters.Seq.class,
            description = "wait until the projector has folded this seq (e.g. the lastSeq of a claim)")
    Long minSeq;

    @Override
    public Integer call() {
        Output out = cli.output();
        RecoveryReport report;
        try (TetherClient tether = cli.client(Role.AGENT)) {
            report = tether.recovery(sessionId, minSeq == null ? ReadAt.latest() : ReadAt.atLeast(minSeq))
                    .orElseThrow(() -> SessionsCommand.notFound(sessionId));
        }
        if (out.json()) {
            out.print(Output.parse(report.json()));
            return 0;
        }
        RecoveryReport.Identity id = report.identity();
        RecoveryReport.Position at = report.position();
        RecoveryReport.Effects effects = report.effects();
        var calls = new ArrayList<String>();
        calls.add("confirmed " + effects.confirmed().size() + ", cancelled " + effects.cancelled().size() + ", unknown "
                + effects.unknown().size() + ", in flight " + effects.inFlight().size() + " (whole session: " + effects.totals().ok() + " ok, "
                + effects.totals().error() + " error, " + effects.totals().cancelled() + " cancelled, " + effects.totals().unknown() + " unknown)");
        calls(calls, "confirmed", effects.confirmed());
        calls(calls, "cancelled", effects.cancelled());
        calls(calls, "unknown", effects.unknown());
        calls(calls, "in flight", effects.inFlight());
        var authority = new ArrayList<String>();
        report.authority().approvalsInForce().forEach(g -> authority.add("grant  " + g.tool() + " " + g.pathGlob().orElse("(any path)")
                + " by " + g.approver() + " at seq " + g.grantSeq()));
        report.authority().pendingApprovals().forEach(c -> authority.add("pending  " + call(c)));
        out.print(Fields.of()
                .add("session", id.sessionId() + " (tenant " + id.tenantId() + ", owner " + id.owner() + ")")
                .add("pinned to", id.harnessVersion() + ", " + id.modelId())
                .add("claimed by", id.workerId().map(w -> w + " (epoch " + id.epoch() + ")").orElse("nobody yet"))
                .add("position", "last seq " + at.lastSeq() + ", step " + at.step() + ", last verified step " + at.lastVerifiedStep()
                        + ", status " + at.status() + at.lastNote().map(n -> ", last note: " + n).orElse(""))
                .addLines("tool calls", calls)
                .addLines("authority", authority)
                .addLines("next safe actions", report.nextSafeActions().stream().map(a -> "- " + a).toList()));
        return 0;
    }

    private static void calls(List<String> lines, String label, List<Call> calls) {
        calls.forEach(c -> lines.add(label + "  " + call(c)));
    }

    private static String call(Call c) {
        return c.callId() + " " + c.tool() + " " + c.state() + " (requested at seq " + c.requestSeq()
                + (c.resultSeq().isPresent() ? ", result at seq " + c.resultSeq().getAsLong() : "") + ", key " + c.idempotencyKey() + ")";
    }
}
