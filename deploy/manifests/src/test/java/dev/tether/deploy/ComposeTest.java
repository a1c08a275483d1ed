package dev.tether.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** deploy/compose/docker-compose.yml, against the services' configuration and Dockerfiles. */
class ComposeTest {

    private static final Pattern HEALTH_URL = Pattern.compile("http://127\\.0\\.0\\.1:(\\d+)(/\\S*)");

    @Test
    void runsKafkaTheRegistryAndTheFourServices_builtFromTheirModulesDockerfiles() {
        Map<String, Object> services = Yaml.map(Manifests.compose(), "services");

        assertThat(services).containsOnlyKeys(List.of("kafka", "registry", "session-service", "projector-service", "approval-service", "tool-executor",
                "session-service-2", "projector-service-2"));
        for (String service : Repo.SERVICES) {
            Map<String, Object> definition = Manifests.composeService(service);
            Path context = Manifests.composeFile().getParent().resolve(Yaml.string(definition, "build", "context")).normalize();

            assertThat(context).as(service + " build context").isEqualTo(Repo.path(service));
            assertThat(context.resolve(Yaml.string(definition, "build", "dockerfile"))).as(service + " Dockerfile")
                    .isEqualTo(Repo.path(service, "src", "main", "docker", "Dockerfile.jvm"))
                    .isRegularFile();
            assertThat(Yaml.string(definition, "image")).as(service).isEqualTo("tether/" + service + ":" + Repo.version());
        }
    }

    @Test
    void everyService_waitsForAHealthyBrokerAndRegistry() {
        for (String service : Repo.SERVICES) {
            Map<String, Object> dependsOn = Yaml.map(Manifests.composeService(service), "depends_on");

            for (String dependency : List.of("kafka", "registry")) {
                assertThat(Yaml.string(dependsOn, dependency, "condition")).as(service + " on " + dependency).isEqualTo("service_healthy");
            }
        }
        assertThat(Yaml.string(Manifests.composeService("registry"), "depends_on", "kafka", "condition")).isEqualTo("service_healthy");
    }

    @Test
    void healthChecks_askEachServicesReadiness_onItsOwnPort() {
        for (String service : Repo.SERVICES) {
            Matcher url = healthUrl(service);

            assertThat(Integer.parseInt(url.group(1))).as(service).isEqualTo(Repo.httpPort(service));
            assertThat(url.group(2)).as(service).isEqualTo("/q/health/ready");
        }
        Matcher registry = healthUrl("registry");
        assertThat(registry.group(1) + registry.group(2)).isEqualTo("9000/health/ready");
        assertThat(healthTest("kafka")).contains("kafka-broker-api-versions.sh", "--bootstrap-server 127.0.0.1:9092");
    }

    @Test
    void publishedPorts_areLoopbackOnly_andMapToEachServicesHttpPort() {
        for (String service : Repo.SERVICES) {
            List<Object> ports = Yaml.list(Manifests.composeService(service), "ports");

            assertThat(ports).as(service).containsExactly("127.0.0.1:" + Repo.httpPort(service) + ":" + Repo.httpPort(service));
        }
        for (String other : List.of("kafka", "registry")) {
            assertThat(Yaml.list(Manifests.composeService(other), "ports")).as(other)
                    .allSatisfy(p -> assertThat(p.toString()).startsWith("127.0.0.1:"));
        }
    }

    @Test
    void brokersHostListener_isAdvertisedByTheLoopbackAddressAndPortItIsPublishedOn() {
        Map<String, String> env = Manifests.composeEnvironment("kafka");
        Matcher listener = Pattern.compile("(?:^|,)HOST://:(\\d+)(?:,|$)").matcher(env.get("KAFKA_LISTENERS"));
        Matcher advertised = Pattern.compile("(?:^|,)HOST://([^:,]+):(\\d+)(?:,|$)").matcher(env.get("KAFKA_ADVERTISED_LISTENERS"));

        assertThat(listener.find()).as("KAFKA_LISTENERS " + env.get("KAFKA_LISTENERS")).isTrue();
        assertThat(advertised.find()).as("KAFKA_ADVERTISED_LISTENERS " + env.get("KAFKA_ADVERTISED_LISTENERS")).isTrue();
        // not localhost: a client may resolve it to ::1 first, where nothing is published
        assertThat(advertised.group(1)).isEqualTo("127.0.0.1");
        assertThat(Yaml.list(Manifests.composeService("kafka"), "ports"))
                .contains(advertised.group(1) + ":" + advertised.group(2) + ":" + listener.group(1));
    }

    @Test
    void haProfile_addsASecondSessionServiceAndProjector_keptHotByStandbys() {
        for (String service : List.of("session-service", "projector-service")) {
            Map<String, Object> second = Manifests.composeService(service + "-2");
            Map<String, String> env = Manifests.composeEnvironment(service + "-2");

            assertThat(Yaml.list(second, "profiles")).as(service + "-2").containsExactly("ha");
            assertThat(Yaml.string(second, "image")).isEqualTo(Yaml.string(Manifests.composeService(service), "image"));
            assertThat(env).as(service + "-2").containsEntry("TETHER_INSTANCE_ID", service + "-2")
                    .containsEntry("TETHER_ADVERTISED_HOST", service + "-2");
            assertThat(Yaml.list(second, "ports")).as(service + "-2").singleElement()
                    .satisfies(p -> assertThat(p.toString()).startsWith("127.0.0.1:").endsWith(":" + Repo.httpPort(service)));
            assertThat(Yaml.list(second, "healthcheck", "test").get(1).toString()).contains(":" + Repo.httpPort(service) + "/q/health/ready");
        }
        for (String service : Repo.STREAMS_SERVICES) {
            assertThat(Manifests.composeEnvironment(service)).as(service)
                    .containsEntry("KAFKA_STREAMS_NUM_STANDBY_REPLICAS", "1")
                    .containsEntry("KAFKA_STREAMS_SESSION_TIMEOUT_MS", "6000")
                    .containsEntry("KAFKA_STREAMS_PRODUCER_TRANSACTION_TIMEOUT_MS", "5000");
        }
        assertThat(Manifests.composeEnvironment("kafka"))
                .containsEntry("KAFKA_TRANSACTION_ABORT_TIMED_OUT_TRANSACTION_CLEANUP_INTERVAL_MS", "1000");
    }

    @Test
    void environment_pointsTheServicesAtTheContainers_withTheirOwnSettingNames() {
        var instanceIds = new java.util.HashSet<String>();
        for (String service : Repo.SERVICES) {
            Map<String, String> env = Manifests.composeEnvironment(service);

            assertThat(env).as(service)
                    .containsEntry("TETHER_KAFKA_BOOTSTRAP", "kafka:9092")
                    .containsEntry("TETHER_REGISTRY_URL", "http://registry:8080/apis/registry/v3")
                    .containsEntry("QUARKUS_HTTP_HOST", "0.0.0.0")
                    .containsEntry("TETHER_TOPICS_REPLICATION_FACTOR", "1")
                    .containsKey("TETHER_TOPICS_PARTITIONS")
                    .doesNotContainKey("QUARKUS_HTTP_PORT");
            assertThat(instanceIds.add(env.get("TETHER_INSTANCE_ID"))).as(service + " TETHER_INSTANCE_ID is its own").isTrue();
            if (Repo.STREAMS_SERVICES.contains(service)) {
                assertThat(env).as(service).containsEntry("TETHER_ADVERTISED_HOST", service);
            }
        }
        assertThat(instanceIds).doesNotContainNull();
    }

    @Test
    void singleBroker_hasTheSettingsExactlyOnceStreamsNeedsOnOneNode() {
        Map<String, Object> kafka = Manifests.composeService("kafka");
        Map<String, String> env = Yaml.strings(Yaml.map(kafka, "environment"));

        assertThat(Yaml.string(kafka, "image")).isEqualTo("apache/kafka:" + Repo.kafkaVersion());
        // without these a single broker leaves exactly-once Kafka Streams waiting forever (PLATFORM.md)
        assertThat(env)
                .containsEntry("KAFKA_PROCESS_ROLES", "broker,controller")
                .containsEntry("KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR", "1")
                .containsEntry("KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR", "1")
                .containsEntry("KAFKA_TRANSACTION_STATE_LOG_MIN_ISR", "1")
                .containsEntry("KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR", "1")
                .containsEntry("KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR", "1")
                .containsKey("CLUSTER_ID");
        assertThat(env.get("KAFKA_ADVERTISED_LISTENERS")).contains("PLAINTEXT://kafka:9092");
        assertThat(mountsOf("kafka")).containsEntry(env.get("KAFKA_LOG_DIRS"), "kafka-data");
    }

    @Test
    void workspaces_areWrittenByTheExecutor_andReadOnlyForApprovals_blobsSharedByThreeServices() {
        String workspaces = Manifests.composeEnvironment("tool-executor").get("TETHER_WORKSPACE_ROOT");
        String blobs = Manifests.composeEnvironment("session-service").get("TETHER_SESSIONS_BLOBS_DIR");

        assertThat(mountsOf("tool-executor")).containsEntry(workspaces, "workspaces").containsEntry(blobs, "blobs");
        assertThat(mountsOf("approval-service")).containsEntry(workspaces, "workspaces:ro").containsEntry(blobs, "blobs");
        assertThat(mountsOf("session-service")).containsEntry(blobs, "blobs").doesNotContainKey(workspaces);
        assertThat(Manifests.composeEnvironment("approval-service"))
                .containsEntry("TETHER_WORKSPACE_ROOT", workspaces)
                .containsEntry("TETHER_SESSIONS_BLOBS_DIR", blobs);
        assertThat(Manifests.composeEnvironment("tool-executor")).containsEntry("TETHER_SESSIONS_BLOBS_DIR", blobs);
        assertThat(Yaml.map(Manifests.compose(), "volumes")).containsKeys("workspaces", "blobs", "kafka-data");
    }

    @Test
    void executor_getsTheNamespacesItsSandboxNeeds_andTimeToFinishACommand() {
        Map<String, Object> executor = Manifests.composeService("tool-executor");

        assertThat(Yaml.list(executor, "security_opt")).contains("seccomp=unconfined", "systempaths=unconfined");
        assertThat(Yaml.listOrEmpty(executor, "cap_add")).as("no capabilities: commands get theirs from a user namespace").isEmpty();
        assertThat(Yaml.find(executor, "privileged")).isNull();
        assertThat(duration(Yaml.string(executor, "stop_grace_period"))).isGreaterThanOrEqualTo(Repo.commandTimeout().plusSeconds(30));
        for (String service : Repo.STREAMS_SERVICES) {
            assertThat(Yaml.find(Manifests.composeService(service), "security_opt")).as(service).isNull();
        }
    }

    private static Matcher healthUrl(String service) {
        String test = healthTest(service);
        Matcher url = HEALTH_URL.matcher(test);
        assertThat(url.find()).as(service + " health check " + test).isTrue();
        return url;
    }

    private static String healthTest(String service) {
        List<Object> test = Yaml.list(Manifests.composeService(service), "healthcheck", "test");
        assertThat(test.get(0)).as(service).isIn("CMD", "CMD-SHELL");
        return String.join(" ", test.subList(1, test.size()).stream().map(Object::toString).toList());
    }

    /** A service's volume mounts: container path → volume (with ":ro" when read-only). */
    private static Map<String, String> mountsOf(String service) {
        var mounts = new java.util.LinkedHashMap<String, String>();
        for (Object volume : Yaml.listOrEmpty(Manifests.composeService(service), "volumes")) {
            String[] parts = volume.toString().split(":");
            mounts.put(parts[1], parts.length > 2 ? parts[0] + ":" + parts[2] : parts[0]);
        }
        return mounts;
    }

    private static Duration duration(String compose) {
        Matcher m = Pattern.compile("(\\d+)s").matcher(compose);
        assertThat(m.matches()).as(compose + " in seconds").isTrue();
        return Duration.ofSeconds(Long.parseLong(m.group(1)));
    }
}
