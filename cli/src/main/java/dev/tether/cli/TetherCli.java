package dev.tether.cli;

import dev.tether.cli.commands.ApprovalsCommand;
import dev.tether.cli.commands.ContextCommand;
import dev.tether.cli.commands.RecoveryCommand;
import dev.tether.cli.commands.ReplayCommand;
import dev.tether.cli.commands.SessionsCommand;
import dev.tether.cli.commands.TopicsCommand;
import dev.tether.cli.commands.VersionsCommand;
import dev.tether.cli.demo.DemoCommand;
import dev.tether.cli.demo.DemoWorkerCommand;
import dev.tether.cli.kafka.KafkaSettings;
import dev.tether.cli.output.Output;
import dev.tether.client.RetryPolicy;
import dev.tether.client.TetherClient;
import dev.tether.client.TetherOptions;
import dev.tether.kit.kafka.TopicLayout;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * {@code tether}: the command line for operators, approvers and agent developers. Sessions, model
 * context and recovery reports go through the services' REST APIs (the client SDK); {@code replay}
 * and {@code topics init} talk to Kafka and the schema registry directly.
 *
 * <p>The global options below are inherited: they may follow any subcommand. Each has an
 * environment variable; the option wins over the variable, the variable over the default.
 */
@Command(name = "tether",
        mixinStandardHelpOptions = true,
        versionProvider = TetherCli.Version.class,
        usageHelpAutoWidth = true,
        description = "Durable state for AI-agent sessions on Apache Kafka: inspect sessions, read model context and recovery "
                + "reports, decide approvals, weight and drain harness versions, replay the log, create the topics.",
        subcommands = {
                SessionsCommand.class, ContextCommand.class, RecoveryCommand.class, ApprovalsCommand.class, VersionsCommand.class,
                ReplayCommand.class, TopicsCommand.class, HelpCommand.class},
        footerHeading = "%nTokens:%n",
        footer = {
                "Without --token or TETHER_TOKEN each command uses the dev key of the role it needs, which bin/run enables:",
                "  sessions, context, recovery   dev-acme-agent     (agent of tenant acme)",
                "  approvals                     dev-acme-approver  (approver of tenant acme)",
                "  versions                      dev-operator       (operator)",
                "Anywhere else, pass a JWT with --token or TETHER_TOKEN.",
                "",
                "Exit status: 0 success, 1 failure (one line on stderr), 2 usage error."})
public final class TetherCli implements Callable<Integer> {

    /** The request timeout when neither {@code --timeout} nor {@code TETHER_TIMEOUT} says otherwise. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
    /**
     * A CLI call is retried only briefly (the SDK's default, about 16 s, suits a worker, not a person waiting): three
     * attempts, 0.2 s then 0.4 s apart, and only for calls the SDK deems safe to repeat.
     */
    static final RetryPolicy RETRY = RetryPolicy.of(3, Duration.ofMillis(200), Duration.ofSeconds(1));
    /** One of Kafka's {@code bootstrap.servers}: host:port, the host a name, an IPv4 or a bracketed IPv6 address (a listener prefix allowed). */
    private static final String SERVER = "(?:[A-Za-z_]+://)?(?:\\[[0-9A-Fa-f:.%]+]|[0-9A-Za-z%._-]+):[0-9]{1,5}";
    /** A topic-name prefix: Kafka's legal characters, short enough to leave room for the longest of Tether's names. */
    private static final java.util.regex.Pattern TOPICS_PREFIX = java.util.regex.Pattern.compile("[A-Za-z0-9._-]{0,200}");
    private static final java.util.regex.Pattern BOOTSTRAP = java.util.regex.Pattern.compile(SERVER + "(?:\\s*,\\s*" + SERVER + ")*");

    @Option(names = "--session-url", scope = ScopeType.INHERIT, paramLabel = "<url>",
            description = "session-service base URL (env TETHER_SESSION_URL; default http://127.0.0.1:8080)")
    URI sessionUrl;

    @Option(names = "--projector-url", scope = ScopeType.INHERIT, paramLabel = "<url>",
            description = "projector-service base URL (env TETHER_PROJECTOR_URL; default http://127.0.0.1:8081)")
    URI projectorUrl;

    @Option(names = "--approvals-url", scope = ScopeType.INHERIT, paramLabel = "<url>",
            description = "approval-service base URL (env TETHER_APPROVALS_URL; default http://127.0.0.1:8082)")
    URI approvalsUrl;

    @Option(names = "--token", scope = ScopeType.INHERIT, paramLabel = "<token>",
            description = "bearer token: a JWT, or a dev key (env TETHER_TOKEN; default: the dev key of the command's role, see below)")
    String token;

    @Option(names = "--timeout", scope = ScopeType.INHERIT, paramLabel = "<duration>",
            description = "how long one request may take, e.g. 30s, 2m (env TETHER_TIMEOUT; default 30s)")
    Duration timeout;

    @Option(names = "--bootstrap", scope = ScopeType.INHERIT, paramLabel = "<host:port>",
            description = "Kafka bootstrap servers, for replay and topics (env TETHER_KAFKA_BOOTSTRAP; default 127.0.0.1:9092)")
    String bootstrap;

    @Option(names = "--registry-url", scope = ScopeType.INHERIT, paramLabel = "<url>",
            description = "Apicurio Registry v3 API, for replay and topics "
                    + "(env TETHER_REGISTRY_URL; default http://127.0.0.1:8085/apis/registry/v3)")
    String registryUrl;

    @Option(names = "--topics-prefix", scope = ScopeType.INHERIT, paramLabel = "<prefix>",
            description = "prefix of every topic name, for replay and topics (env TETHER_TOPICS_PREFIX; default none)")
    String topicsPrefix;

    @Option(names = "--json", scope = ScopeType.INHERIT, description = "print JSON instead of tables")
    boolean json;

    @Spec
    CommandSpec spec;

    private final Map<String, String> env;

    /** @param env the environment the defaults are read from ({@code System.getenv()}, or a map in tests) */
    public TetherCli(Map<String, String> env) {
        this.env = Map.copyOf(Objects.requireNonNull(env, "env"));
    }

    /** Keeps the registry client's java.util.logging notices (e.g. about its shared Vert.x instance) off stderr. */
    private static final java.util.logging.Logger APICURIO_LOG = java.util.logging.Logger.getLogger("io.apicurio");

    public static void main(String[] args) {
        APICURIO_LOG.setLevel(java.util.logging.Level.SEVERE);
        System.exit(commandLine(System.getenv()).execute(args));
    }

    /**
     * The whole command tree, with its error handling: a failure prints one line on stderr and exits 1, a usage
     * error one line (and the way to the help) and exits 2. Output goes to the {@code CommandLine}'s out and err.
     */
    public static CommandLine commandLine(Map<String, String> env) {
        var errors = new ErrorReporter(ErrorReporter.debugOn(env.get("TETHER_DEBUG")));
        CommandLine line = new CommandLine(new TetherCli(env));
        // the demo's commands declare --session-url and the like themselves: they are added once the global options are
        // inherited by the other commands, and no longer inheritable
        keepGlobalOptionsFromLaterSubcommands(line.getCommandSpec());
        line.getSubcommands().values().forEach(TetherCli::hideGlobalOptionsInHelp);
        for (Object demo : List.of(new DemoCommand(), new DemoWorkerCommand())) {
            CommandLine command = new CommandLine(demo);
            command.getCommandSpec().mixinStandardHelpOptions(true); // --help and --version, like every other command
            line.addSubcommand(command);
        }
        line.getSubcommands().values().forEach(TetherCli::printTheVersion);
        line.setCaseInsensitiveEnumValuesAllowed(true)
                .setExecutionExceptionHandler(errors)
                .setParameterExceptionHandler(errors);
        line.registerConverter(Duration.class, text -> {
            try {
                return Durations.parse(text);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        });
        line.registerConverter(URI.class, TetherCli::baseUrl);
        return line.setOut(new PrintWriter(System.out, true, StandardCharsets.UTF_8))
                .setErr(new PrintWriter(System.err, true, StandardCharsets.UTF_8));
    }

    /**
     * A subcommand's help lists its own options only, and points to {@code tether --help} for the global ones it
     * accepts too; the global options stay bound to this class's fields.
     */
    private static void hideGlobalOptionsInHelp(CommandLine command) {
        CommandSpec spec = command.getCommandSpec();
        for (OptionSpec option : List.copyOf(spec.options())) {
            if (option.inherited()) {
                spec.remove(option);
                spec.addOption(OptionSpec.builder(option).hidden(true).scopeType(ScopeType.LOCAL).build()); // its subcommands have their own copies
            }
        }
        if (spec.usageMessage().footer().length == 0) {
            spec.usageMessage().footer("%nGlobal options (--json, --token, --timeout, --session-url, --bootstrap...) go before or after the "
                    + "command; see 'tether --help'.");
        }
        command.getSubcommands().values().forEach(TetherCli::hideGlobalOptionsInHelp);
    }

    /** Every command's {@code --version} prints {@code tether}'s, as its help says (picocli would print nothing). */
    private static void printTheVersion(CommandLine command) {
        command.getCommandSpec().versionProvider(new Version());
        command.getSubcommands().values().forEach(TetherCli::printTheVersion);
    }

    /**
     * Picocli copies an inherited option into every subcommand as it is added. The subcommands of the annotation have
     * their copies (bound to this class's fields) by now; re-adding the root's options with local scope, bound to the
     * same fields, keeps subcommands added later from getting copies.
     */
    private static void keepGlobalOptionsFromLaterSubcommands(CommandSpec root) {
        for (OptionSpec option : List.copyOf(root.options())) {
            if (option.scopeType() == ScopeType.INHERIT) {
                root.remove(option);
                root.addOption(OptionSpec.builder(option).scopeType(ScopeType.LOCAL).build());
            }
        }
    }

    /** {@code tether} alone: the usage, on stderr, as a usage error. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return CommandLine.ExitCode.USAGE;
    }

    // --- what the commands use --------------------------------------------------------------------

    /** Where the command's tables, JSON and progress go. */
    public Output output() {
        CommandLine line = spec.commandLine();
        return new Output(line.getOut(), line.getErr(), json, System.console() != null);
    }

    /** The three services' URLs: from the options, the environment, or the local defaults. */
    public TetherOptions services() {
        return TetherOptions.of(
                url(sessionUrl, "TETHER_SESSION_URL", TetherOptions.LOCAL_SESSIONS, "--session-url"),
                url(projectorUrl, "TETHER_PROJECTOR_URL", TetherOptions.LOCAL_PROJECTOR, "--projector-url"),
                url(approvalsUrl, "TETHER_APPROVALS_URL", TetherOptions.LOCAL_APPROVALS, "--approvals-url"));
    }

    /** A client of the three services with the token of {@code role} (unless one was given); the caller closes it. */
    public TetherClient client(Role role) {
        TetherOptions options = services()
                .withToken(token(role))
                .withTimeout(timeout())
                .withConnectTimeout(Duration.ofSeconds(5))
                .withRetry(RETRY);
        return TetherClient.create(options);
    }

    /** The bearer token a command of {@code role} sends. */
    public String token(Role role) {
        String chosen = token != null ? token : env.get("TETHER_TOKEN");
        if (chosen == null) {
            return role.devKey();
        }
        if (chosen.isBlank() || chosen.chars().anyMatch(c -> c <= ' ' || c >= 0x7f)) {
            throw usageError((token != null ? "--token" : "TETHER_TOKEN (or --token)") + ": the token must be printable ASCII without "
                    + "spaces" + (chosen.isEmpty() ? ", not empty" : "")); // the value is not shown: it may be a real secret, pasted wrong
        }
        return chosen;
    }

    public Duration timeout() {
        if (timeout != null) {
            return timeout;
        }
        String fromEnv = env.get("TETHER_TIMEOUT");
        if (fromEnv == null || fromEnv.isBlank()) { // set but empty reads as unset, as the other variables do
            return DEFAULT_TIMEOUT;
        }
        try {
            return Durations.parse(fromEnv);
        } catch (IllegalArgumentException e) {
            throw usageError("TETHER_TIMEOUT: " + e.getMessage());
        }
    }

    /** Where Kafka and the registry are, and the topics' layout: from the options, the environment, or the local defaults. */
    public KafkaSettings kafka(Integer partitions, Short replicationFactor) {
        String servers = first(bootstrap, env.get("TETHER_KAFKA_BOOTSTRAP"), "127.0.0.1:9092");
        if (!BOOTSTRAP.matcher(servers.trim()).matches()) {
            throw usageError((bootstrap != null ? "--bootstrap" : "TETHER_KAFKA_BOOTSTRAP (or --bootstrap)") + ": '" + servers
                    + "' is not a list of host:port (e.g. 127.0.0.1:9092 or kafka-1:9092,kafka-2:9092)");
        }
        String registry = first(registryUrl, env.get("TETHER_REGISTRY_URL"), "http://127.0.0.1:8085/apis/registry/v3");
        String prefix = first(topicsPrefix, env.get("TETHER_TOPICS_PREFIX"), "");
        if (!TOPICS_PREFIX.matcher(prefix).matches()) { // else every topic name is illegal, and Kafka says so topic by topic, or not at all
            throw usageError((topicsPrefix != null ? "--topics-prefix" : "TETHER_TOPICS_PREFIX (or --topics-prefix)") + ": '" + prefix
                    + "' cannot begin a Kafka topic name: letters, digits, '.', '_' or '-', up to 200 (e.g. staging.)");
        }
        int p = partitions != null ? partitions : intEnv("TETHER_TOPICS_PARTITIONS", TopicLayout.DEFAULT_PARTITIONS);
        int r = replicationFactor != null ? replicationFactor : intEnv("TETHER_TOPICS_REPLICATION_FACTOR", 1);
        if (p < 1) {
            throw usageError("TETHER_TOPICS_PARTITIONS (or --partitions) must be at least 1, not " + p);
        }
        if (r < 1 || r > Short.MAX_VALUE) {
            throw usageError("TETHER_TOPICS_REPLICATION_FACTOR (or --replication-factor) must be from 1 to " + Short.MAX_VALUE + ", not " + r);
        }
        try {
            baseUrl(registry);
        } catch (CommandLine.TypeConversionException e) {
            throw usageError((registryUrl != null ? "--registry-url" : "TETHER_REGISTRY_URL (or --registry-url)") + ": " + e.getMessage());
        }
        return new KafkaSettings(servers, registry, new TopicLayout(prefix, p, (short) r), timeout());
    }

    private URI url(URI option, String variable, URI fallback, String name) {
        if (option != null) {
            return option;
        }
        String value = env.get(variable);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            return baseUrl(value);
        } catch (CommandLine.TypeConversionException e) {
            throw usageError(variable + " (or " + name + "): " + e.getMessage());
        }
    }

    private int intEnv(String variable, int fallback) {
        String value = env.get(variable);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw usageError(variable + " must be a number, not '" + value + "'");
        }
    }

    /** A usage error of the command being run (not of {@code tether} itself), e.g. a bad value in the environment. */
    private ParameterException usageError(String message) {
        CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
        while (parsed != null && parsed.hasSubcommand()) {
            parsed = parsed.subcommand();
        }
        return new ParameterException(parsed == null ? spec.commandLine() : parsed.commandSpec().commandLine(), message);
    }

    private static String first(String option, String fromEnv, String fallback) {
        return option != null ? option : fromEnv != null && !fromEnv.isBlank() ? fromEnv : fallback;
    }

    /**
     * An http(s) base URL as the client takes it, checked when the option is parsed so that a typo is a usage error. The
     * messages never show a user:password the URL carries.
     */
    static URI baseUrl(String text) {
        String shown = "'" + withoutCredentials(text) + "'";
        URI uri;
        try {
            uri = new URI(text.trim());
        } catch (URISyntaxException e) {
            uri = null;
        }
        if (uri == null || !uri.isAbsolute() || uri.getHost() == null
                || !("http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme()))) {
            throw new CommandLine.TypeConversionException(shown + " is not an http or https URL (e.g. http://127.0.0.1:8080)");
        }
        if (uri.getRawUserInfo() != null) {
            throw new CommandLine.TypeConversionException(shown + " carries credentials, which are not sent from a URL (a service's "
                    + "token goes in --token or TETHER_TOKEN)");
        }
        if (uri.getPort() > 65535) {
            throw new CommandLine.TypeConversionException(shown + " has a port beyond 65535");
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new CommandLine.TypeConversionException(shown + " is a base URL: no query (?) or fragment (#)");
        }
        return uri;
    }

    /**
     * {@code text} as an error may show it: whatever stands between the scheme's {@code //} (or the start, when there is
     * none) and the last {@code @} is taken for a user and password, which may hold a {@code /}, {@code ?} or {@code #}.
     */
    private static String withoutCredentials(String text) {
        int at = text.lastIndexOf('@');
        if (at < 0) {
            return text;
        }
        int slashes = text.indexOf("//");
        int start = slashes >= 0 && slashes < at ? slashes + 2 : 0;
        return text.substring(0, start) + "<credentials>" + text.substring(at);
    }

    /** {@code tether --version}: the jar's version, from the Maven metadata packaged with it. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = null;
            try (var in = TetherCli.class.getResourceAsStream("/META-INF/maven/dev.tether/tether-cli/pom.properties")) {
                if (in != null) {
                    var properties = new java.util.Properties();
                    properties.load(in);
                    version = properties.getProperty("version");
                }
            } catch (java.io.IOException e) {
                // no metadata: an unpackaged build
            }
            return new String[] {"tether " + (version == null ? "(development build)" : version)};
        }
    }
}
