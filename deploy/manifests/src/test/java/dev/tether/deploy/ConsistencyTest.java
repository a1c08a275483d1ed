package dev.tether.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.deploy.Manifests.Doc;
import dev.tether.kit.kafka.RocksDbOptions;
import dev.tether.kit.service.TetherConfig;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** What deploy/compose and deploy/k8s must agree on: images, addresses, and the names of the settings they set. */
class ConsistencyTest {

    private static final Pattern REFERENCE = Pattern.compile("\\$\\{([^:}]+)");
    private static final Pattern BUILD_TAG = Pattern.compile("docker build .* -t (\\S+) ");
    /** An environment variable that gives the tool-executor a secret (tether.executor.secrets.*). */
    private static final Pattern SECRET_VARIABLE = Pattern.compile("\\bTETHER_EXECUTOR_SECRETS_[A-Z0-9_]+");
    /** A secret's name as the docs give it: a secret://name reference, or the property tether.executor.secrets."name". */
    private static final Pattern SECRET_NAME = Pattern.compile("secret://([A-Za-z0-9_]+(?:[.-][A-Za-z0-9_]+)*)|tether\\.executor\\.secrets\\.\"([^\"]+)\"");

    /**
     * The part of the tool-executor's {@code ExecutorConfig} that holds the values of {@code secret://name} references
     * (a map under {@code tether.executor.secrets}); repeated here because no module may depend on a service module.
     */
    @ConfigMapping(prefix = "tether.executor")
    interface ExecutorSecrets {
        Map<String, String> secrets();
    }

    @Test
    void imageNames_areTheSameInComposeAndKubernetes() {
        for (String service : Repo.SERVICES) {
            String composeImage = Yaml.string(Manifests.composeService(service), "image");
            String k8sImage = Yaml.string(Manifests.container(Manifests.workloadOf(service)), "image");

            assertThat(k8sImage).as(service).isEqualTo(composeImage);
            Matcher documented = BUILD_TAG.matcher(Repo.read(Repo.path(service, "src", "main", "docker", "Dockerfile.jvm")));
            assertThat(documented.find()).as(service + " Dockerfile.jvm shows its docker build command").isTrue();
            assertThat(documented.group(1)).as(service + " Dockerfile.jvm's docker build tag").isEqualTo(composeImage);
        }
        String registry = "apicurio/apicurio-registry:" + Repo.apicurioVersion();
        assertThat(Yaml.string(Manifests.composeService("registry"), "image")).isEqualTo(registry);
        assertThat(Yaml.string(Manifests.container(Manifests.workloadOf("registry")), "image")).isEqualTo(registry);
        assertThat(Yaml.string(Manifests.composeService("kafka"), "image")).isEqualTo("apache/kafka:" + Repo.kafkaVersion());
        assertThat(Yaml.string(KafkaTopicsTest.kafka().spec(), "kafka", "version")).isEqualTo(Repo.kafkaVersion());
    }

    @Test
    void registryAndBrokerAddresses_nameAServiceThatListensThere() {
        Map<String, String> composeEnv = Manifests.composeEnvironment("session-service");
        URI composeRegistry = URI.create(composeEnv.get("TETHER_REGISTRY_URL"));
        assertThat(Yaml.map(Manifests.compose(), "services")).containsKey(composeRegistry.getHost());
        assertThat(composeRegistry.getPort()).isEqualTo(8080);
        assertThat(composeRegistry.getPath()).isEqualTo("/apis/registry/v3");
        assertThat(composeEnv.get("TETHER_KAFKA_BOOTSTRAP")).isEqualTo("kafka:9092");

        Map<String, String> config = Yaml.strings(Yaml.map(KafkaTopicsTest.configMap().root(), "data"));
        URI k8sRegistry = URI.create(config.get("TETHER_REGISTRY_URL"));
        Doc registryService = Manifests.ofKind(Manifests.base(), "Service").stream()
                .filter(s -> k8sRegistry.getHost().equals(s.name()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no Service " + k8sRegistry.getHost() + " for TETHER_REGISTRY_URL"));
        assertThat(Yaml.maps(registryService.spec(), "ports")).anySatisfy(p -> assertThat(Yaml.integer(p, "port")).isEqualTo(k8sRegistry.getPort()));
        assertThat(k8sRegistry.getPath()).isEqualTo(composeRegistry.getPath());
    }

    @Test
    void everyTetherSetting_theManifestsSet_isOneTheServicesRead() {
        Set<String> known = knownSettings();
        List<String> set = new ArrayList<>();
        for (String service : Repo.SERVICES) {
            set.addAll(Manifests.composeEnvironment(service).keySet());
            Yaml.maps(Manifests.container(Manifests.workloadOf(service)), "env").forEach(e -> set.add(Yaml.string(e, "name")));
        }
        set.addAll(Yaml.map(KafkaTopicsTest.configMap().root(), "data").keySet());

        assertThat(known).as("settings found in the code").contains("TETHER_KAFKA_BOOTSTRAP", "TETHER_TOPICS_PARTITIONS", "TETHER_INSTANCE_ID");
        // KAFKA_STREAMS_*: an environment variable reaches Kafka Streams only if a properties file names its property
        assertThat(set.stream().filter(s -> s.startsWith("TETHER_") || s.startsWith("KAFKA_STREAMS_")).distinct().sorted())
                .as("TETHER_* and KAFKA_STREAMS_* variables no properties file or TetherConfig reads (a typo is silently ignored)")
                .isNotEmpty()
                .allSatisfy(name -> assertThat(known).contains(name));
    }

    @Test
    void executorSecretVariables_giveTheExecutorTheSecretNamesTheirFilesSay() {
        // what the executor makes of a variable: underscores after the prefix become dots, whatever the docs meant
        assertThat(executorSecretOf("TETHER_EXECUTOR_SECRETS_TOKEN")).isEqualTo("token");
        assertThat(executorSecretOf("TETHER_EXECUTOR_SECRETS_GITHUB_TOKEN")).isEqualTo("github.token");

        int checked = 0;
        for (Path file : deployTextFiles()) {
            String text = Repo.read(file);
            Set<String> variables = new TreeSet<>();
            SECRET_VARIABLE.matcher(text).results().forEach(m -> variables.add(m.group()));
            if (variables.isEmpty()) {
                continue;
            }
            Set<String> documented = new TreeSet<>();
            SECRET_NAME.matcher(text).results()
                    .map(m -> m.group(1) != null ? m.group(1) : m.group(2))
                    .filter(name -> !name.equals("name")) // secret://name: the placeholder of prose
                    .forEach(documented::add);
            Set<String> given = new TreeSet<>();
            for (String variable : variables) {
                String secret = executorSecretOf(variable);
                given.add(secret);
                assertThat(documented).as(Repo.relative(file) + ": " + variable + " gives the executor the secret " + secret
                        + " (a reference secret://" + secret + "), which the file should name").contains(secret);
            }
            assertThat(given).as(Repo.relative(file) + ": the secrets its variables give the executor, against the names it documents")
                    .containsAll(documented);
            checked++;
        }
        assertThat(checked).as("files that show how to give the executor a secret").isGreaterThanOrEqualTo(2);
    }

    /** The name of the one secret the tool-executor reads from the environment variable {@code variable}, as Quarkus maps it. */
    static String executorSecretOf(String variable) {
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .withProfile("prod")
                .withSources(new EnvConfigSource(Map.of(variable, "value"), 300))
                .withSources(new PropertiesConfigSource(asMap(Repo.applicationProperties("tool-executor")), "application.properties", 250))
                .withSources(new PropertiesConfigSource(asMap(Repo.properties(
                        Repo.path("service-kit", "src/main/resources/META-INF/microprofile-config.properties"))), "microprofile-config.properties", 100))
                .withMapping(ExecutorSecrets.class)
                .withValidateUnknown(false)
                .build();
        Set<String> names = config.getConfigMapping(ExecutorSecrets.class).secrets().keySet();
        assertThat(names).as("the secrets " + variable + " gives the executor").hasSize(1);
        return names.iterator().next();
    }

    private static Map<String, String> asMap(Properties properties) {
        var map = new java.util.HashMap<String, String>();
        properties.stringPropertyNames().forEach(name -> map.put(name, properties.getProperty(name)));
        return map;
    }

    /** Every file under deploy/ but the build's output. */
    private static List<Path> deployTextFiles() {
        try (Stream<Path> files = Files.walk(Repo.path("deploy"))) {
            return files.filter(Files::isRegularFile)
                    .filter(f -> !Repo.relative(f).contains("/target/"))
                    .filter(f -> f.getFileName().toString().matches(".*\\.(md|ya?ml|properties)"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void knownSettings_areFoundIn_propertiesReferencesKeysAndTheConfigMapping() {
        Set<String> known = knownSettings();

        assertThat(known)
                .contains("TETHER_WORKSPACE_ROOT") // ${TETHER_WORKSPACE_ROOT:...}
                .contains("TETHER_AUTH_DEV_KEYS_ENABLED") // the key tether.auth.dev-keys.enabled
                .contains("TETHER_TOPICS_REPLICATION_FACTOR", "TETHER_TOPICS_INIT") // TetherConfig.Topics
                .doesNotContain("TETHER_WORKSPACES_ROOT", "TETHER_TOPIC_PARTITIONS");
    }

    /** The environment variable of every setting the services read: MicroProfile Config's mapping of each name. */
    static Set<String> knownSettings() {
        var names = new TreeSet<String>();
        for (Path file : Repo.configurationFiles()) {
            Properties properties = Repo.properties(file);
            for (String key : properties.stringPropertyNames()) {
                names.add(environmentName(key.replaceFirst("^%[^.]+\\.", "")));
                Matcher reference = REFERENCE.matcher(properties.getProperty(key));
                while (reference.find()) {
                    names.add(environmentName(reference.group(1)));
                }
            }
        }
        addMapped(TetherConfig.class, "tether", names);
        names.addAll(RocksDbOptions.VARIABLES); // read by the stores' options, which Kafka Streams creates itself
        return names;
    }

    /** The settings of a @ConfigMapping interface: its methods, kebab-cased, nested interfaces as prefixes. */
    private static void addMapped(Class<?> mapping, String prefix, Set<String> names) {
        for (Method method : mapping.getMethods()) {
            if (method.isDefault() || Modifier.isStatic(method.getModifiers()) || method.getParameterCount() > 0) {
                continue;
            }
            String name = prefix + "." + method.getName().replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
            Class<?> type = method.getReturnType();
            if (type.isInterface() && type.getName().startsWith(TetherConfig.class.getName() + "$")) {
                addMapped(type, name, names);
            } else {
                names.add(environmentName(name));
            }
        }
    }

    private static String environmentName(String property) {
        return property.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(Locale.ROOT);
    }
}
