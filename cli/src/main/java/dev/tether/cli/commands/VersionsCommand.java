package dev.tether.cli.commands;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.cli.CliException;
import dev.tether.cli.Converters;
import dev.tether.cli.Durations;
import dev.tether.cli.Role;
import dev.tether.cli.TetherCli;
import dev.tether.cli.output.Output;
import dev.tether.cli.output.Progress;
import dev.tether.cli.output.Table;
import dev.tether.client.HarnessVersion;
import dev.tether.client.Rejected;
import dev.tether.client.TetherClient;
import dev.tether.client.VersionResult;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code tether versions}: harness versions for rainbow deploys, as an operator. */
@Command(name = "versions", mixinStandardHelpOptions = true,
        description = {"The harness versions of the operator's tenant, for rainbow deploys: each version's weight for the "
                + "tenant's new sessions, its state, and how many of the tenant's sessions pinned to it are still open.",
                "A weight is a percent of new sessions: each ACTIVE version takes its weight, the default version (v1) takes "
                        + "what the others leave over, and the ACTIVE weights may total at most 100. While the default version "
                        + "is not ACTIVE, the ACTIVE versions share every new session in proportion to their weights. SHARE "
                        + "is what each version gets, as the session-service computes it.",
                "Sessions keep the version and the model they started on; a version that names a model pins its new "
                        + "sessions to it."})
public final class VersionsCommand {

    @ParentCommand
    TetherCli cli;

    @Spec
    CommandSpec spec;

    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "Every version of the operator's tenant: weight, share of new sessions, state, model, open sessions.")
    int list() {
        Output out = cli.output();
        List<HarnessVersion> versions;
        try (TetherClient tether = cli.client(Role.OPERATOR)) {
            versions = tether.harnessVersions();
        }
        print(out, versions);
        return 0;
    }

    @Command(name = "set-weight", mixinStandardHelpOptions = true,
            description = {"Make the version ACTIVE with this weight, a percent (0-100) of new sessions, keeping its model; a new "
                    + "version is registered. E.g. 'set-weight v2 10' sends 10%% of new sessions to v2 and the other 90%% to "
                    + "the default version v1. Refused if the ACTIVE versions' weights would total more than 100."})
    int setWeight(@Parameters(index = "0", paramLabel = "<version>", converter = Converters.Version.class) String version,
                  @Parameters(index = "1", paramLabel = "<weight>", converter = Converters.Weight.class) int weight) {
        Output out = cli.output();
        List<HarnessVersion> versions;
        try (TetherClient tether = cli.client(Role.OPERATOR)) {
            versions = updated("setting the weight of " + version, tether.setWeight(version, weight));
        }
        if (!out.json()) {
            out.note(version + " is ACTIVE with weight " + weight + ": " + find(versions, version).map(v -> percent(v.share())).orElse("0%")
                    + " of new sessions");
        }
        print(out, versions);
        return 0;
    }

    @Command(name = "drain", mixinStandardHelpOptions = true,
            description = {"Stop sending new sessions to the version (DRAINING, weight 0, keeping its model); the sessions "
                    + "pinned to it carry on. Without --wait it reports how many of them are still open once, and returns at "
                    + "once: run it again (or 'versions list') to see the count fall. With --wait it polls until none is "
                    + "open, showing the count as it falls."})
    int drain(@Parameters(paramLabel = "<version>", converter = Converters.Version.class) String version,
              @Option(names = "--wait", description = "poll until no session of the version is open") boolean await,
              @Option(names = "--interval", paramLabel = "<duration>", defaultValue = "2s",
                      description = "with --wait: how often to look (default: ${DEFAULT-VALUE})") Duration interval,
              @Option(names = "--max-wait", paramLabel = "<duration>",
                      description = "with --wait: give up (exit status 1) after this long; default: wait as long as it takes")
              Duration maxWait) throws InterruptedException {
        picocli.CommandLine drain = spec.subcommands().get("drain");
        if (!await && (drain.getParseResult().hasMatchedOption("--interval") || drain.getParseResult().hasMatchedOption("--max-wait"))) {
            throw new ParameterException(drain, "--interval and --max-wait are for --wait: add --wait, or leave them out");
        }
        Output out = cli.output();
        long started = System.nanoTime();
        HarnessVersion entry;
        try (TetherClient tether = cli.client(Role.OPERATOR)) {
            List<HarnessVersion> before = tether.harnessVersions();
            if (find(before, version).isEmpty()) {
                throw new CliException("no harness version " + version + " (there are: "
                        + String.join(", ", before.stream().map(HarnessVersion::version).toList()) + ")");
            }
            List<HarnessVersion> after = updated("draining " + version, tether.drain(version));
            entry = find(after, version).orElseThrow(() -> new CliException("the session-service answered the drain of " + version
                    + " with a list of versions that lacks it; 'tether versions list' shows where it stands"));
            if (after.stream().noneMatch(v -> "ACTIVE".equals(v.state()) && v.share() > 0)) {
                out.note("tether: warning: no ACTIVE version takes new sessions any more: they go to the default version");
            }
            if (await) {
                try (Progress progress = out.progress("drain " + version, Duration.ofSeconds(30))) {
                    long last = -1;
                    while (entry.openSessions() > 0) {
                        Duration waited = Duration.ofNanos(System.nanoTime() - started);
                        if (entry.openSessions() != last) {
                            progress.force(openText(entry.openSessions()) + " (waited " + Durations.format(waited) + ")");
                            last = entry.openSessions();
                        } else {
                            progress.update(openText(entry.openSessions()) + " (waited " + Durations.format(waited) + ")");
                        }
                        if (maxWait != null && waited.compareTo(maxWait) >= 0) {
                            throw new CliException(version + " is not drained after " + Durations.format(waited) + ": "
                                    + openText(entry.openSessions()));
                        }
                        // not past --max-wait: a long --interval would keep it waiting a whole interval more
                        Duration sleep = maxWait == null ? interval : min(interval, maxWait.minus(waited));
                        Thread.sleep(Math.max(1, sleep.toMillis()));
                        entry = find(tether.harnessVersions(), version)
                                .orElseThrow(() -> new CliException("harness version " + version + " disappeared while draining"));
                    }
                }
            }
        }
        Duration waited = Duration.ofNanos(System.nanoTime() - started);
        if (out.json()) {
            ObjectNode n = Views.version(entry);
            n.put("drained", entry.drained());
            out.print(n);
        } else if (entry.openSessions() == 0) {
            out.line(version + " is drained: no open sessions" + (await ? " (waited " + Durations.format(waited) + ")" : ""));
        } else {
            out.line(version + " is " + entry.state() + ": " + openText(entry.openSessions()));
        }
        return 0;
    }

    private static List<HarnessVersion> updated(String what, VersionResult result) {
        if (result instanceof Rejected r) {
            throw Views.refused(what, r);
        }
        return result.versionsOrThrow();
    }

    private static void print(Output out, List<HarnessVersion> versions) {
        if (out.json()) {
            out.print(Views.versions(versions));
            return;
        }
        Table table = Table.of("VERSION", "STATE", "WEIGHT", "SHARE", "MODEL", "OPEN SESSIONS");
        versions.forEach(v -> table.row(v.version() + (v.isDefault() ? " (default)" : ""), v.state(), v.weight(), percent(v.share()),
                v.modelId().orElse(null), v.openSessions()));
        out.print(table);
    }

    /** A share of new sessions as the session-service reports it, rounded to a whole percent. */
    static String percent(double share) {
        return String.format(Locale.ROOT, "%.0f%%", share);
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static Optional<HarnessVersion> find(List<HarnessVersion> versions, String version) {
        return versions.stream().filter(v -> v.version().equals(version)).findFirst();
    }

    private static String openText(long open) {
        return open == 1 ? "1 session still open" : open + " sessions still open";
    }
}
