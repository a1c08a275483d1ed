package dev.tether.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.deploy.Manifests.Doc;
import dev.tether.kit.kafka.RocksDbOptions;
import dev.tether.kit.service.TetherConfig;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URI;
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
import org.junit.jupiter.api.Test;

/** What deploy/compose and deploy/k8s must agree on: images, addresses, and the names of the settings they set. */
class ConsistencyTest {

    private static final Pattern REFERENCE = Pattern.compile("\\$\\{([^:}]+)");
    private static final Pattern BUILD_TAG = Pattern.compile("docker build .* -t (\\S+) ");

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
