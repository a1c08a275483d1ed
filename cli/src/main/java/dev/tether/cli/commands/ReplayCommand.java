package dev.tether.cli.commands;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.cli.CliException;
import dev.tether.cli.Durations;
import dev.tether.cli.TetherCli;
import dev.tether.cli.kafka.CheckpointSink;
import dev.tether.cli.kafka.KafkaSettings;
import dev.tether.cli.kafka.LogReplay;
import dev.tether.cli.kafka.ReplayReport;
import dev.tether.cli.output.Fields;
import dev.tether.cli.output.Output;
import dev.tether.cli.output.Progress;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code tether replay}: rebuild the checkpoints from the log, and time it. */
@Command(name = "replay", mixinStandardHelpOptions = true,
        description = {"Rebuild every session's checkpoint from the log and report how long it took and how many events/s.",
                "Reads the whole session-events topic (to the end offsets it has when the replay starts) with a plain Kafka "
                        + "consumer, checks that each session's seqs run 1, 2, 3... without a gap, and folds each session with the "
                        + "projector's own pure fold (Projection.evolve), in this process. Then compares each rebuilt checkpoint "
                        + "with the latest one in session-checkpoints: they must be equal field for field.",
                "By default nothing is written. With --into <topic> the rebuilt checkpoints are written there, keyed by "
                        + "sessionId, Avro like session-checkpoints (a tombstone for each erased session); the topic is created "
                        + "compacted if missing. session-checkpoints itself is never written: the projector is its only writer.",
                "The model-context message store, call records and tool requests are not rebuilt (the projector writes those).",
                "Talks to Kafka and the registry (--bootstrap, --registry-url, --topics-prefix), not to the services.",
                "Exit status 1 if a log has a gap, a fold fails, or a rebuilt checkpoint differs from the projector's."})
public final class ReplayCommand implements Callable<Integer> {

    @ParentCommand
    TetherCli cli;

    @Spec
    CommandSpec spec;

    @Option(names = "--no-compare", description = "skip the comparison with session-checkpoints")
    boolean noCompare;

    @Option(names = "--into", paramLabel = "<topic>",
            description = "also write the rebuilt checkpoints to this compacted topic (the name as given, no prefix added), "
                    + "creating it if missing; not one of Tether's own topics")
    String into;

    @Override
    public Integer call() {
        Output out = cli.output();
        KafkaSettings kafka = cli.kafka(null, null);
        CheckpointSink sink = into == null ? null : sink(kafka); // a bad name fails before the log is read
        ReplayReport report;
        try (Progress progress = out.progress("replay", Duration.ofSeconds(5))) {
            report = new LogReplay(kafka).run(!noCompare, sink, (events, fraction, elapsed) -> progress.update(String.format(Locale.ROOT,
                    "%,d events (%.0f%% of the log), %,.0f events/s", events, fraction * 100,
                    elapsed.toNanos() == 0 ? 0.0 : events / (elapsed.toNanos() / 1e9))));
        }
        if (out.json()) {
            out.print(json(report));
        } else {
            print(out, report);
        }
        if (!report.clean()) {
            int differ = report.comparison().map(c -> c.differ().size()).orElse(0);
            throw new CliException("the replay found problems: " + report.problems().size() + " session(s) whose log or fold failed, "
                    + differ + " checkpoint(s) that differ from the projector's");
        }
        return 0;
    }

    /** The report as a detail block: every session named in a verdict is listed under it. */
    static void print(Output out, ReplayReport r) {
        Fields fields = Fields.of()
                .add("topic", r.topic() + " (" + r.partitions() + " partitions)")
                .add("read", Views.count(r.records(), "record") + " in " + Durations.format(r.elapsed()) + ": "
                        + Views.count(r.events(), "event") + ", " + Views.count(r.tombstones(), "tombstone"))
                .add("rate", String.format(Locale.ROOT, "%,.0f events/s (read, deserialized and folded)", r.eventsPerSecond()))
                .add("sessions", String.format(Locale.ROOT, "%,d rebuilt with the projector's fold, %,d erased; %s", r.sessions(),
                        r.erasedSessions(), r.problems().isEmpty() ? "every log gapless" : Views.count(r.problems().size(), "session")
                                + " with problems"));
        r.comparison().ifPresent(c -> fields.add("checkpoints", String.format(Locale.ROOT,
                "%,d equal to %s, %d differ, %d behind, %d ahead, %d missing (read and compared in %s)", c.equal(), c.topic(),
                c.differ().size(), c.behind().size(), c.ahead().size(), c.missing().size(), Durations.format(c.elapsed()))));
        r.written().ifPresent(w -> fields.add("written", String.format(Locale.ROOT, "%s and %s to %s (%s) in %s%s",
                Views.count(w.checkpoints(), "checkpoint"), Views.count(w.tombstones(), "tombstone"), w.topic(),
                w.created() ? "created, compacted" : "compacted, existed", Durations.format(w.elapsed()),
                w.skipped() == 0 ? "" : "; " + Views.count(w.skipped(), "session") + " with problems not written")));
        if (!r.problems().isEmpty()) {
            fields.addLines("problems", r.problems());
        }
        r.comparison().ifPresent(c -> {
            if (!c.differ().isEmpty()) {
                fields.addLines("differ", c.differ());
            }
            if (!c.behind().isEmpty()) {
                fields.addLines("behind", c.behind());
            }
            if (!c.ahead().isEmpty()) {
                fields.addLines("ahead", c.ahead());
            }
            if (!c.missing().isEmpty()) {
                fields.addLines("missing", c.missing());
            }
        });
        out.print(fields);
    }

    private static ObjectNode json(ReplayReport r) {
        ObjectNode n = Output.object();
        n.put("topic", r.topic());
        n.put("partitions", r.partitions());
        n.put("records", r.records());
        n.put("events", r.events());
        n.put("tombstones", r.tombstones());
        n.put("sessions", r.sessions());
        n.put("erasedSessions", r.erasedSessions());
        n.put("seconds", r.elapsed().toNanos() / 1e9);
        n.put("eventsPerSecond", Math.round(r.eventsPerSecond()));
        strings(n.putArray("problems"), r.problems());
        r.comparison().ifPresent(c -> {
            ObjectNode cn = n.putObject("checkpoints");
            cn.put("topic", c.topic());
            cn.put("equal", c.equal());
            strings(cn.putArray("differ"), c.differ());
            strings(cn.putArray("behind"), c.behind());
            strings(cn.putArray("ahead"), c.ahead());
            strings(cn.putArray("missing"), c.missing());
            cn.put("seconds", c.elapsed().toNanos() / 1e9);
        });
        r.written().ifPresent(w -> {
            ObjectNode wn = n.putObject("written");
            wn.put("topic", w.topic());
            wn.put("created", w.created());
            wn.put("checkpoints", w.checkpoints());
            wn.put("tombstones", w.tombstones());
            wn.put("skipped", w.skipped());
            wn.put("seconds", w.elapsed().toNanos() / 1e9);
        });
        n.put("clean", r.clean());
        return n;
    }

    private static void strings(ArrayNode array, List<String> values) {
        values.forEach(array::add);
    }

    /** The sink of {@code --into}; a name it refuses is a usage error (exit status 2), as a bad value of any option is. */
    private CheckpointSink sink(KafkaSettings kafka) {
        try {
            return new CheckpointSink(kafka, into);
        } catch (CliException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
