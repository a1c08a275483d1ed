package dev.tether.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** Parsing: usage errors are one line and exit status 2, before anything is sent anywhere. */
class UsageTest {

    /** Nothing listens here: a command that got past parsing would fail with exit status 1, not 2. */
    private static final Map<String, String> NOWHERE = Map.of("TETHER_SESSION_URL", "http://127.0.0.1:9", "TETHER_PROJECTOR_URL",
            "http://127.0.0.1:9", "TETHER_APPROVALS_URL", "http://127.0.0.1:9", "TETHER_KAFKA_BOOTSTRAP", "127.0.0.1:9");

    @ParameterizedTest(name = "tether {0}")
    @CsvSource(delimiter = '|', value = {
            "sessions fork demo-1                              | tether sessions fork: Missing required option: '--at-seq=<seq>'",
            "sessions fork demo-1 --at-seq 0                   | tether sessions fork: Invalid value for option '--at-seq': a seq starts at 1, not 0",
            "sessions tail demo-1 --from-seq x                 | tether sessions tail: Invalid value for option '--from-seq': 'x' is not a whole number",
            "sessions lst                                      | tether sessions: Unmatched argument at index 1: 'lst'; did you mean list?",
            "sessions list --status maybe                      | tether sessions list: Invalid value for option '--status'",
            "context demo-1 --format gemini                    | tether context: Invalid value for option '--format'",
            "context demo-1 --at-seq 3 --min-seq 4             | tether context: Error: --at-seq=<seq>, --min-seq=<seq> are mutually exclusive",
            "context demo-1 --max-tokens 0                     | tether context: Invalid value for option '--max-tokens': must be from 1",
            "approvals grant demo-1~9 --reason ok --tool edit_file | tether approvals grant: --tool and --path-glob narrow a session grant: add --session",
            "approvals deny demo-1~9                           | tether approvals deny: Missing required option: '--reason=<text>'",
            "approvals deny demo-1~9 --reason no --requested-at yesterday | tether approvals deny: --requested-at must be an instant such as 2026-12-05T09:30:00.123Z, not 'yesterday' (see 'tether approvals deny --help')",
            "approvals list --status MAYBE                     | tether approvals list: Invalid value for option '--status'",
            "versions set-weight v2 101                        | tether versions set-weight: Invalid value for positional parameter at index 1 (<weight>): a weight is from 0 to 100, not 101",
            "versions set-weight v2                            | tether versions set-weight: Missing required parameter: '<weight>'",
            "versions drain v1 --wait --interval soon          | tether versions drain: Invalid value for option '--interval': 'soon' is not a duration",
            "versions drain v1 --max-wait 5m                   | tether versions drain: --interval and --max-wait are for --wait: add --wait",
            "versions drain v1 --interval 1s                   | tether versions drain: --interval and --max-wait are for --wait: add --wait",
            "--session-url ftp://x sessions list               | tether: Invalid value for option '--session-url': 'ftp://x' is not an http or https URL",
            "topics init --partitions 0                        | tether topics init: Invalid value for option '--partitions': must be from 1",
            "topics init --replication-factor 65537            | tether topics init: Invalid value for option '--replication-factor': a replication factor is from 1 to 32767, not 65537",
            "topics init --replication-factor 40000            | tether topics init: Invalid value for option '--replication-factor': a replication factor is from 1 to 32767, not 40000",
            "sessions list --timeout 0s                        | tether sessions list: Invalid value for option '--timeout': '0s' is not a positive duration",
            "replay --timeout 720h                             | tether replay: Invalid value for option '--timeout': '720h' is out of range: from 1ms to 596h",
            "sessions list --timeout 9999999999999999h         | tether sessions list: Invalid value for option '--timeout': '9999999999999999h' is out of range",
            "replay --bootstrap kafka                          | tether replay: --bootstrap: 'kafka' is not a list of host:port (e.g. 127.0.0.1:9092",
            "topics init --topics-prefix a/b.                  | tether topics init: --topics-prefix: 'a/b.' cannot begin a Kafka topic name",
            "replay --registry-url http://u:pw@h:1/apis        | tether replay: --registry-url: 'http://<credentials>@h:1/apis' carries credentials",
            "topics init --bootstrap h:1,                      | tether topics init: --bootstrap: 'h:1,' is not a list of host:port",
            "sessions show ../etc                              | tether sessions show: Invalid value for positional parameter at index 0 (<sessionId>): a session id is 1-128 letters",
            "sessions fork demo-1 --at-seq 2 --new-id a/b      | tether sessions fork: Invalid value for option '--new-id': a session id is 1-128",
            "context demo~1                                    | tether context: Invalid value for positional parameter at index 0 (<sessionId>): a session id",
            "recovery .hidden                                  | tether recovery: Invalid value for positional parameter at index 0 (<sessionId>): a session id",
            "frobnicate                                        | tether: Unmatched argument at index 0: 'frobnicate'"})
    void aUsageError_isOneLineOnStderr_andExitStatus2(String args, String expected) {
        CliRun run = CliRun.run(NOWHERE, args.trim().split("\\s+"));

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.errLines()).hasSize(1);
        assertThat(run.err()).startsWith(expected).contains("(see '");
    }

    @Test
    void anEmptySessionId_isAUsageError_notAFailedCommand() {
        for (String command : List.of("show", "tail", "erase")) {
            CliRun run = CliRun.run(NOWHERE, "sessions", command, "");

            assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
            assertThat(run.err()).as(run.toString()).startsWith("tether sessions " + command + ": Invalid value for positional parameter")
                    .contains("a session id is 1-128 letters");
        }
    }

    @Test
    void aMalformedApprovalIdOrVersion_isAUsageError_andNothingIsSent() {
        try (FakeServices services = new FakeServices()) {
            for (String[] args : List.of(new String[] {"approvals", "show", ".."}, new String[] {"approvals", "show", ""},
                    new String[] {"approvals", "show", "demo-1"}, new String[] {"approvals", "grant", "../demo-1~9", "--reason", "ok"},
                    new String[] {"approvals", "deny", "demo-1~x", "--reason", "no"}, new String[] {"approvals", "retry", "~9", "--reason", "r"},
                    new String[] {"versions", "set-weight", "", "10"}, new String[] {"versions", "set-weight", "v/2", "10"},
                    new String[] {"versions", "drain", ".."})) {
                CliRun run = CliRun.run(services.env(), args);

                assertThat(run.exitCode()).as(String.join(" ", args) + ": " + run).isEqualTo(2);
                assertThat(run.errLines()).as(run.toString()).hasSize(1);
                assertThat(run.err()).as(run.toString()).containsAnyOf("an approval id is <sessionId>~<seq>", "a harness version is 1-128");
            }
            assertThat(services.requests()).isEmpty();
        }
    }

    @Test
    void aBlankToolOrPathGlob_ofASessionGrant_isAUsageError_andNothingIsSent() {
        try (FakeServices services = new FakeServices()) {
            CliRun glob = CliRun.run(services.env(), "approvals", "grant", "demo-1~9", "--session", "--path-glob", "", "--reason", "ok");
            CliRun tool = CliRun.run(services.env(), "approvals", "grant", "demo-1~9", "--session", "--tool", " ", "--reason", "ok");

            assertThat(glob.exitCode()).as(glob.toString()).isEqualTo(2);
            assertThat(glob.errLines()).containsExactly("tether approvals grant: --path-glob must not be blank: leave it out for a grant "
                    + "of the call's tool on any path (see 'tether approvals grant --help')");
            assertThat(tool.exitCode()).as(tool.toString()).isEqualTo(2);
            assertThat(tool.err()).startsWith("tether approvals grant: --tool must not be blank");
            assertThat(services.requests()).isEmpty();
        }
    }

    @Test
    void skipRecord_ofAnUnknownServiceOrTopic_orANegativeOffset_isAUsageError_beforeKafkaIsAsked() {
        String[] base = {"topics", "skip-record", "--service", "session-service", "--topic", "session-commands", "--partition", "0",
                "--offset", "4"};
        for (String[] bad : List.of(new String[] {"--service", "sequencer", "a service is one of session-service, projector-service"},
                new String[] {"--topic", "staging.session-commands", "a topic is one of Tether's, named without the prefix"},
                new String[] {"--offset", "-1", "must be 0 or more, not -1"},
                new String[] {"--partition", "x", "'x' is not a whole number"},
                new String[] {"--partition", "3000000000", "a partition is from 0 to 2147483647, not 3000000000"})) {
            String[] args = base.clone();
            for (int i = 2; i < args.length; i += 2) {
                if (args[i].equals(bad[0])) {
                    args[i + 1] = bad[1];
                }
            }
            CliRun run = CliRun.run(NOWHERE, args);

            assertThat(run.exitCode()).as(String.join(" ", args) + ": " + run).isEqualTo(2);
            assertThat(run.err()).as(run.toString()).startsWith("tether topics skip-record: Invalid value for option '" + bad[0] + "'")
                    .contains(bad[2]);
        }
        CliRun missing = CliRun.run(NOWHERE, "topics", "skip-record", "--service", "session-service");
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err()).contains("Missing required options").contains("--topic").contains("--offset");
    }

    @Test
    void replayInto_oneOfTethersOwnTopics_isAUsageError_beforeAnythingIsReadOrWritten() {
        CliRun run = CliRun.run(NOWHERE, "replay", "--into", "session-checkpoints");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.errLines()).containsExactly("tether replay: --into: session-checkpoints is one of Tether's own topics; the "
                + "projector alone writes checkpoints to session-checkpoints: name another topic (see 'tether replay --help')");

        CliRun anotherInstallations = CliRun.run(NOWHERE, "replay", "--topics-prefix", "staging.", "--into", "session-checkpoints");
        assertThat(anotherInstallations.exitCode()).isEqualTo(2);
        assertThat(anotherInstallations.errLines()).containsExactly("tether replay: --into: session-checkpoints is Tether's "
                + "session-checkpoints topic of the installation with no prefix, not this one's (--topics-prefix 'staging.'): name "
                + "another topic (see 'tether replay --help')");
        assertThat(CliRun.run(NOWHERE, "replay", "--into", "prod.session-events").err())
                .startsWith("tether replay: --into: prod.session-events is Tether's session-events topic of the installation under the prefix 'prod.'");
        assertThat(CliRun.run(NOWHERE, "replay", "--into", "tether-projector-service-session-checkpoint-store-changelog").err())
                .startsWith("tether replay: --into: tether-projector-service-session-checkpoint-store-changelog is named like a Kafka "
                        + "Streams internal topic");

        CliRun illegal = CliRun.run(NOWHERE, "replay", "--into", "no spaces");
        assertThat(illegal.exitCode()).isEqualTo(2);
        assertThat(illegal.err()).startsWith("tether replay: --into: 'no spaces' is not a legal Kafka topic name");
    }

    @Test
    void aBadBootstrapInTheEnvironment_isAUsageError_namingTheVariable_beforeAnyClientIsMade() {
        CliRun run = CliRun.run(Map.of("TETHER_KAFKA_BOOTSTRAP", "not a host"), "replay");

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
        assertThat(run.errLines()).containsExactly("tether replay: TETHER_KAFKA_BOOTSTRAP (or --bootstrap): 'not a host' is not a list of "
                + "host:port (e.g. 127.0.0.1:9092 or kafka-1:9092,kafka-2:9092) (see 'tether replay --help')");
        assertThat(CliRun.run(Map.of("TETHER_KAFKA_BOOTSTRAP", "127.0.0.1:9092"), "replay", "--bootstrap", "").err())
                .startsWith("tether replay: --bootstrap: '' is not a list of host:port");
        CliRun valid = CliRun.run(Map.of("TETHER_KAFKA_BOOTSTRAP", "127.0.0.1:9, [::1]:9,PLAINTEXT://localhost:9"), "replay", "--timeout", "500ms");
        assertThat(valid.exitCode()).as(valid.toString()).isEqualTo(1); // past parsing: nothing listens there
    }

    @Test
    void aMistypedOption_isNamed_butWhatFollowsItIsNotEchoed_forItIsOftenASecret() {
        CliRun spaced = CliRun.run(NOWHERE, "sessions", "list", "--tokne", "s3cr3t-key");
        CliRun joined = CliRun.run(NOWHERE, "sessions", "list", "--tokne=s3cr3t-key");

        for (CliRun run : List.of(spaced, joined)) {
            assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
            assertThat(run.err()).as(run.toString()).doesNotContain("s3cr3t-key").contains("'--tokne'");
        }
        assertThat(spaced.err()).contains("1 more argument not shown");
    }

    @Test
    void aTokenThatCannotBeSent_isAUsageErrorNamingWhereItCameFrom_withoutEchoingIt() {
        CliRun emptyVariable = CliRun.run(Map.of("TETHER_TOKEN", ""), "sessions", "list");
        CliRun spacedVariable = CliRun.run(Map.of("TETHER_TOKEN", "Bearer s3cr3t-key"), "approvals", "list");
        CliRun option = CliRun.run(NOWHERE, "versions", "list", "--token", "s3cr3t-key\n");

        assertThat(emptyVariable.errLines()).containsExactly("tether sessions list: TETHER_TOKEN (or --token): the token must be "
                + "printable ASCII without spaces, not empty (see 'tether sessions list --help')");
        assertThat(spacedVariable.err()).startsWith("tether approvals list: TETHER_TOKEN (or --token): the token must be printable");
        assertThat(option.err()).startsWith("tether versions list: --token: the token must be printable ASCII without spaces (see");
        for (CliRun run : List.of(emptyVariable, spacedVariable, option)) {
            assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
            assertThat(run.err()).doesNotContain("s3cr3t-key");
        }
    }

    @Test
    void anOptionTypedWithATypographicDash_isNamed_butWhatFollowsItIsNotEchoed() {
        CliRun emDash = CliRun.run(NOWHERE, "sessions", "list", "\u2014token", "s3cr3t-key");
        CliRun enDash = CliRun.run(NOWHERE, "sessions", "list", "\u2013token=s3cr3t-key");

        for (CliRun run : List.of(emDash, enDash)) {
            assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
            assertThat(run.errLines()).as(run.toString()).hasSize(1);
            assertThat(run.err()).as(run.toString()).doesNotContain("s3cr3t-key").contains("options start with '--', not a typographic dash");
        }
        assertThat(emDash.err()).startsWith("tether sessions list: Unknown option: '\u2014token' (1 more argument not shown");
        assertThat(enDash.err()).startsWith("tether sessions list: Unknown option: '\u2013token';");
    }

    @Test
    void tetherAlone_printsTheUsage_asAUsageError() {
        CliRun run = CliRun.run(NOWHERE);

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).startsWith("Usage: tether").contains("sessions", "replay", "topics");
    }

    @Test
    void aTopicLayoutOutOfRangeInTheEnvironment_isAUsageError_namingTheVariable() {
        CliRun replicas = CliRun.run(Map.of("TETHER_TOPICS_REPLICATION_FACTOR", "40000"), "topics", "init");
        CliRun partitions = CliRun.run(Map.of("TETHER_TOPICS_PARTITIONS", "0"), "topics", "init");

        assertThat(replicas.exitCode()).isEqualTo(2);
        assertThat(replicas.errLines()).containsExactly("tether topics init: TETHER_TOPICS_REPLICATION_FACTOR (or --replication-factor) "
                + "must be from 1 to 32767, not 40000 (see 'tether topics init --help')");
        assertThat(partitions.exitCode()).isEqualTo(2);
        assertThat(partitions.errLines()).containsExactly("tether topics init: TETHER_TOPICS_PARTITIONS (or --partitions) must be at least "
                + "1, not 0 (see 'tether topics init --help')");
    }

    @Test
    void anEmptyTimeoutVariable_readsAsUnset_likeTheOtherVariables() {
        try (FakeServices services = new FakeServices()) {
            services.on("GET /v1/sessions?limit=500", 200, "{\"sessions\":[]}");

            CliRun run = CliRun.run(services.env("TETHER_TIMEOUT", "", "TETHER_KAFKA_BOOTSTRAP", ""), "sessions", "list");

            assertThat(run.exitCode()).as(run.toString()).isZero();
            assertThat(run.err()).isEqualTo("no sessions\n");
        }
    }

    @Test
    void aTopicsPrefixKafkaCannotTake_inTheEnvironment_isAUsageError_namingTheVariable() {
        CliRun run = CliRun.run(Map.of("TETHER_TOPICS_PREFIX", "staging "), "replay");

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
        assertThat(run.errLines()).containsExactly("tether replay: TETHER_TOPICS_PREFIX (or --topics-prefix): 'staging ' cannot begin a "
                + "Kafka topic name: letters, digits, '.', '_' or '-', up to 200 (e.g. staging.) (see 'tether replay --help')");
    }

    @Test
    void aBadUrlInTheEnvironment_isAUsageError_namingTheVariable() {
        CliRun run = CliRun.run(Map.of("TETHER_SESSION_URL", "127.0.0.1:8080"), "sessions", "list");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).startsWith("tether sessions list: TETHER_SESSION_URL (or --session-url): '127.0.0.1:8080' is not an http");
    }

    @Test
    void aUrlTheClientWouldRefuse_isAUsageErrorNamingTheOption_andItsCredentialsAreNeverEchoed() {
        CliRun port = CliRun.run(NOWHERE, "sessions", "list", "--session-url", "http://127.0.0.1:99999");
        CliRun query = CliRun.run(NOWHERE, "approvals", "list", "--approvals-url", "http://127.0.0.1:8082/?tenant=acme");
        CliRun credentials = CliRun.run(NOWHERE, "context", "demo-1", "--projector-url", "http://ops:hunter2@127.0.0.1:8081");
        CliRun malformed = CliRun.run(NOWHERE, "sessions", "list", "--session-url", "http://ops:hunter2@[::1");
        CliRun fromEnv = CliRun.run(Map.of("TETHER_SESSION_URL", "https://ops:hunter2@tether.example.com"), "sessions", "list");

        for (CliRun run : List.of(port, query, credentials, malformed, fromEnv)) {
            assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
            assertThat(run.errLines()).as(run.toString()).hasSize(1);
            assertThat(run.err()).as(run.toString()).doesNotContain("hunter2");
        }
        assertThat(port.err()).startsWith("tether sessions list: Invalid value for option '--session-url': 'http://127.0.0.1:99999' "
                + "has a port beyond 65535");
        assertThat(query.err()).startsWith("tether approvals list: Invalid value for option '--approvals-url': "
                + "'http://127.0.0.1:8082/?tenant=acme' is a base URL: no query (?) or fragment (#)");
        assertThat(credentials.err()).startsWith("tether context: Invalid value for option '--projector-url': "
                + "'http://<credentials>@127.0.0.1:8081' carries credentials, which are not sent from a URL (a service's token goes in "
                + "--token or TETHER_TOKEN)");
        assertThat(malformed.err()).contains("'http://<credentials>@[::1' is not an http or https URL");
        assertThat(fromEnv.err()).startsWith("tether sessions list: TETHER_SESSION_URL (or --session-url): "
                + "'https://<credentials>@tether.example.com' carries credentials");
    }

    @Test
    void aPasswordWithASlashHashOrQuestionMark_orAUrlWithoutItsScheme_isNeverEchoedEither() {
        CliRun hash = CliRun.run(NOWHERE, "replay", "--registry-url", "http://ops:hunter#2@registry:8085/apis/registry/v3");
        CliRun slash = CliRun.run(NOWHERE, "sessions", "list", "--session-url", "http://ops:hunter/2@127.0.0.1:8080");
        CliRun question = CliRun.run(NOWHERE, "approvals", "list", "--approvals-url", "https://ops:hunter?2@127.0.0.1:8082");
        CliRun noScheme = CliRun.run(Map.of("TETHER_REGISTRY_URL", "ops:hunter2@registry:8085/apis/registry/v3"), "replay");

        for (CliRun run : List.of(hash, slash, question, noScheme)) {
            assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
            assertThat(run.errLines()).as(run.toString()).hasSize(1);
            assertThat(run.err()).as(run.toString()).doesNotContain("hunter");
        }
        assertThat(hash.err()).contains("'http://<credentials>@registry:8085/apis/registry/v3'");
        assertThat(slash.err()).contains("'http://<credentials>@127.0.0.1:8080'");
        assertThat(question.err()).contains("'https://<credentials>@127.0.0.1:8082'");
        assertThat(noScheme.err()).startsWith("tether replay: TETHER_REGISTRY_URL (or --registry-url): "
                + "'<credentials>@registry:8085/apis/registry/v3' is not an http or https URL");
    }

    @Test
    void everyCommand_hasHelp_thatExitsZero() {
        var commands = new ArrayList<List<String>>();
        collect(TetherCli.commandLine(Map.of()), new ArrayList<>(), commands);

        assertThat(commands).extracting(c -> String.join(" ", c)).contains("sessions list", "sessions show", "sessions tail", "sessions fork",
                "sessions erase", "context", "recovery", "approvals list", "approvals show", "approvals grant", "approvals deny",
                "approvals mark-done", "approvals retry", "approvals abandon", "versions list", "versions set-weight", "versions drain",
                "replay", "topics init", "demo", "demo-worker");
        for (List<String> command : commands) {
            var args = new ArrayList<>(command);
            args.add("--help");
            CliRun run = CliRun.run(NOWHERE, args.toArray(String[]::new));
            assertThat(run.exitCode()).as(String.join(" ", args)).isZero();
            assertThat(run.out()).as(String.join(" ", args)).startsWith("Usage: tether");
        }
    }

    @Test
    void everyCommand_printsTheVersion_thatItsHelpPromises() {
        var commands = new ArrayList<List<String>>();
        collectAll(TetherCli.commandLine(Map.of()), new ArrayList<>(), commands);

        assertThat(commands).extracting(c -> String.join(" ", c)).contains("sessions", "sessions list", "topics skip-record", "demo");
        for (List<String> command : commands) {
            var args = new ArrayList<>(command);
            args.add("--version");
            CliRun run = CliRun.run(NOWHERE, args.toArray(String[]::new));
            assertThat(run.exitCode()).as(String.join(" ", args)).isZero();
            assertThat(run.out()).as(String.join(" ", args)).startsWith("tether ");
        }
    }

    @Test
    void everyCommandsHelp_isFormatted_withoutAPicocliWarningOnStderr() {
        var commands = new ArrayList<List<String>>();
        collect(TetherCli.commandLine(Map.of()), new ArrayList<>(), commands);
        var warnings = new java.io.ByteArrayOutputStream();
        java.io.PrintStream stderr = System.err;
        System.setErr(new java.io.PrintStream(warnings, true, java.nio.charset.StandardCharsets.UTF_8)); // picocli warns there
        try {
            for (List<String> command : commands) {
                var args = new ArrayList<>(command);
                args.add("--help");
                CliRun.run(NOWHERE, args.toArray(String[]::new));
            }
        } finally {
            System.setErr(stderr);
        }

        assertThat(warnings.toString(java.nio.charset.StandardCharsets.UTF_8)).doesNotContain("picocli");
        assertThat(CliRun.run(NOWHERE, "versions", "set-weight", "--help").out().replaceAll("\\s+", " "))
                .contains("sends 10% of new sessions to v2 and the other 90% to the default version v1");
    }

    @Test
    void theGlobalOptions_areAcceptedBeforeAndAfterTheCommand() {
        CliRun before = CliRun.run(NOWHERE, "--json", "--timeout", "1s", "sessions", "list");
        CliRun after = CliRun.run(NOWHERE, "sessions", "list", "--json", "--timeout", "1s");

        // both got past parsing: they failed on the (absent) service, not on the options
        assertThat(before.exitCode()).as(before.toString()).isEqualTo(1);
        assertThat(after.exitCode()).as(after.toString()).isEqualTo(1);
    }

    @Test
    void theDemoCommands_keepTheirOwnServiceOptions() {
        CommandLine line = TetherCli.commandLine(Map.of());

        // the demo declares --session-url itself; the global one is not inherited into it
        assertThat(line.getSubcommands().get("demo").getCommandSpec().findOption("--session-url").inherited()).isFalse();
        assertThat(line.getSubcommands().get("demo").getCommandSpec().findOption("--json")).isNull();
        assertThat(line.getSubcommands().get("sessions").getSubcommands().get("list").getCommandSpec().findOption("--json").inherited()).isTrue();
    }

    @Test
    void theServiceUrlsGivenBeforeTheDemo_areTheOnesItPlaysAgainst(@org.junit.jupiter.api.io.TempDir java.nio.file.Path workspaces) {
        try (FakeServices services = new FakeServices()) {
            CliRun run = CliRun.run(NOWHERE, "--session-url", services.url(), "--projector-url", services.url(), "--approvals-url",
                    services.url(), "demo", "--workspaces", workspaces.toString());

            assertThat(run.exitCode()).as(run.toString()).isEqualTo(1); // the fake has no session to create
            assertThat(services.requests("POST", "/v1/sessions")).as(run.toString()).isNotEmpty();
        }
    }

    @Test
    void theDemo_takesTheServiceUrlsFromTheEnvironment_asEveryCommandDoes(@org.junit.jupiter.api.io.TempDir java.nio.file.Path workspaces) {
        try (FakeServices services = new FakeServices()) {
            // TETHER_SESSION_URL set but empty reads as unset, as for every other command, not as an invalid --session-url
            CliRun empty = CliRun.run(Map.of("TETHER_SESSION_URL", ""), "demo", "--help");
            CliRun run = CliRun.run(services.env(), "demo", "--workspaces", workspaces.toString());

            assertThat(empty.exitCode()).as(empty.toString()).isZero();
            assertThat(run.exitCode()).as(run.toString()).isEqualTo(1); // the fake has no session to create
            assertThat(services.requests("POST", "/v1/sessions")).as(run.toString()).isNotEmpty();
        }
    }

    /** Every command, the groups ({@code sessions}) as well as their commands. */
    private static void collectAll(CommandLine line, List<String> path, List<List<String>> out) {
        for (var entry : line.getSubcommands().entrySet()) {
            var next = new ArrayList<>(path);
            next.add(entry.getKey());
            if (!entry.getKey().equals("help")) {
                out.add(next);
                collectAll(entry.getValue(), next, out);
            }
        }
    }

    private static void collect(CommandLine line, List<String> path, List<List<String>> out) {
        for (var entry : line.getSubcommands().entrySet()) {
            if (entry.getKey().equals("help")) {
                continue;
            }
            var next = new ArrayList<>(path);
            next.add(entry.getKey());
            if (entry.getValue().getSubcommands().isEmpty()) {
                out.add(next);
            } else {
                collect(entry.getValue(), next, out);
            }
        }
    }
}
