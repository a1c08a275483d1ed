package dev.tether.cli.commands;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.cli.CliException;
import dev.tether.cli.Converters;
import dev.tether.cli.TetherCli;
import dev.tether.cli.kafka.KafkaSettings;
import dev.tether.cli.kafka.RecordSkip;
import dev.tether.cli.output.Output;
import dev.tether.cli.output.Table;
import dev.tether.kit.kafka.RegistryUnavailableException;
import dev.tether.kit.kafka.SchemaRegistryInitializer;
import dev.tether.kit.kafka.TopicInitializer;
import dev.tether.kit.kafka.TopicMisconfiguredException;
import dev.tether.kit.kafka.TopicSpec;
import dev.tether.kit.kafka.Topics;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.TopicConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code tether topics}: Tether's topics and schemas, as code (common's {@code Topics}). */
@Command(name = "topics", mixinStandardHelpOptions = true,
        description = "Tether's topics and their value schemas, defined once in code; talks to Kafka and the registry directly.")
public final class TopicsCommand {

    @ParentCommand
    TetherCli cli;

    @Command(name = "init", mixinStandardHelpOptions = true,
            description = {"Create the topics that are missing and verify the ones that exist, then register each topic's value "
                    + "schema with its FULL_TRANSITIVE rule: what every service does at start-up. Idempotent.",
                    "Refuses (exit status 1) a topic that could lose events, e.g. session-events with cleanup.policy=delete."})
    int init(@Option(names = "--partitions", paramLabel = "<n>", converter = Converters.Positive.class,
                     description = "partitions of new topics (env TETHER_TOPICS_PARTITIONS; default 6); harness-versions always has 1")
             Integer partitions,
             @Option(names = "--replication-factor", paramLabel = "<n>", converter = Converters.ReplicationFactor.class,
                     description = "replicas of new topics (env TETHER_TOPICS_REPLICATION_FACTOR; default 1)")
             Short replicationFactor,
             @Option(names = "--verify-only", description = "create and register nothing: a missing topic, schema or rule is an error")
             boolean verifyOnly) {
        Output out = cli.output();
        KafkaSettings kafka = cli.kafka(partitions, replicationFactor);
        if (!out.json()) {
            out.note("topics: " + (verifyOnly ? "verifying" : "creating and verifying") + " the topics on " + kafka.bootstrapServers()
                    + (kafka.layout().prefix().isEmpty() ? "" : " under the prefix '" + kafka.layout().prefix() + "'"));
        }
        TopicInitializer.Report report;
        try (Admin admin = Admin.create(kafka.admin())) {
            var topics = new TopicInitializer(admin, kafka.timeout());
            report = verifyOnly ? topics.verify(kafka.layout()) : topics.init(kafka.layout());
        } catch (TopicMisconfiguredException e) {
            throw new CliException(e.getMessage(), e);
        } catch (IllegalStateException e) {
            throw new CliException("Kafka at " + kafka.bootstrapServers() + " (see --bootstrap): " + e.getMessage(), e);
        }
        if (!out.json()) {
            out.note("topics: " + (verifyOnly ? "verifying" : "registering") + " the value schemas at " + kafka.registryUrl());
        }
        List<SchemaRegistryInitializer.Subject> subjects = subjects(kafka, verifyOnly);
        List<TopicSpec> specs = Topics.all(kafka.layout());
        if (out.json()) {
            ObjectNode n = Output.object();
            strings(n.putArray("created"), report.created());
            strings(n.putArray("verified"), report.verified());
            strings(n.putArray("warnings"), report.warnings());
            ArrayNode list = n.putArray("subjects");
            subjects.forEach(s -> list.addObject().put("subject", s.name()).put("schemaId", s.schemaId()).put("compatibility", s.compatibility()));
            out.print(n);
            return 0;
        }
        Table topics = Table.of("TOPIC", "PARTITIONS", "CLEANUP", "RETENTION", "RESULT");
        specs.forEach(s -> topics.row(s.name(), s.partitions(), s.cleanupPolicy(), retention(s),
                report.created().contains(s.name()) ? "created" : "verified"));
        out.print(topics);
        out.line("");
        Table schemas = Table.of("SUBJECT", "SCHEMA ID", "COMPATIBILITY");
        subjects.forEach(s -> schemas.row(s.name(), s.schemaId(), s.compatibility()));
        out.print(schemas);
        report.warnings().forEach(w -> out.note("tether: warning: " + w));
        return 0;
    }

    @Command(name = "skip-record", mixinStandardHelpOptions = true,
            description = {"Move a stopped service past the one record of a topic that it cannot read (bytes that are not Avro, a schema "
                    + "id the registry does not have), which stops it at every start: the services never skip a record by themselves. "
                    + "cli/README.md, \"A record a service cannot read\", says when to use it and when not.",
                    "Checks first that the service's consumer group has no member (stop every instance first), that the group "
                    + "stands at that offset, and that the record cannot be read through the registry; refuses a record that reads, "
                    + "or whose reading needs the registry back. Then commits the next offset for the group."})
    int skipRecord(@Option(names = "--service", required = true, paramLabel = "<service>", converter = Converters.Service.class,
                           description = "whose consumer group: session-service, projector-service, approval-service or tool-executor")
                   String service,
                   @Option(names = "--topic", required = true, paramLabel = "<topic>", converter = Converters.Topic.class,
                           description = "the topic, without the prefix (e.g. session-commands)")
                   String topic,
                   @Option(names = "--partition", required = true, paramLabel = "<n>", converter = Converters.Partition.class)
                   Integer partition,
                   @Option(names = "--offset", required = true, paramLabel = "<offset>", converter = Converters.NonNegative.class,
                           description = "the record's offset, as the service's log names it")
                   Long offset) {
        Output out = cli.output();
        RecordSkip.Skipped s = new RecordSkip(cli.kafka(null, null)).skip(service, topic, partition, offset);
        if (out.json()) {
            ObjectNode n = Output.object().put("group", s.group()).put("topic", s.topic()).put("partition", s.partition())
                    .put("offset", s.offset()).put("key", s.key()).put("bytes", s.bytes()).put("timestamp", s.timestamp().toString())
                    .put("reason", s.reason()).put("committed", s.offset() + 1);
            out.print(n);
            return 0;
        }
        out.line("skipped offset " + s.offset() + " of " + s.topic() + "-" + s.partition() + " for " + s.group() + ": the group now "
                + "starts at " + (s.offset() + 1));
        out.line("the record: key " + (s.key() == null ? "none" : "'" + s.key() + "'") + ", " + s.bytes() + " bytes, written "
                + s.timestamp());
        out.line("unreadable: " + s.reason());
        return 0;
    }

    /** Registers each topic's value schema and its rule, or with {@code verifyOnly} checks that they are there, writing nothing. */
    static List<SchemaRegistryInitializer.Subject> subjects(KafkaSettings kafka, boolean verifyOnly) {
        var registry = SchemaRegistryInitializer.of(kafka.registry());
        try {
            if (!verifyOnly) {
                return registry.init(kafka.layout());
            }
            var verification = registry.verify(kafka.layout());
            if (!verification.problems().isEmpty()) {
                throw new CliException("the registry at " + kafka.registry().ccompatUrl() + " is not ready for these topics ('tether topics"
                        + " init' registers the schemas): " + String.join("; ", verification.problems()));
            }
            return verification.ready();
        } catch (RegistryUnavailableException e) {
            throw new CliException(e.getMessage() + " (see --registry-url and --timeout)", e);
        }
    }

    /** What the spec asks of the topic's retention. */
    private static String retention(TopicSpec spec) {
        String ms = spec.configs().get(TopicConfig.RETENTION_MS_CONFIG);
        if (ms == null) {
            return "";
        }
        if (ms.equals("-1")) {
            return "forever";
        }
        Duration d = Duration.ofMillis(Long.parseLong(ms));
        return d.toDays() > 0 && d.toHours() % 24 == 0 ? plural(d.toDays(), "day") : plural(d.toHours(), "hour");
    }

    private static String plural(long n, String unit) {
        return n + " " + unit + (n == 1 ? "" : "s");
    }

    private static void strings(ArrayNode array, List<String> values) {
        values.forEach(array::add);
    }
}
