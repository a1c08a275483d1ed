package dev.tether.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.deploy.Manifests.Doc;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The Kubernetes workloads of the four services, against each service's configuration. */
class WorkloadsTest {

    private static final String NAME = "app.kubernetes.io/name";
    private static final String VERSION = "app.kubernetes.io/version";
    private static final String COLOR = "tether.dev/color";
    /** What a Quarkus service with Kafka clients keeps beside its heap: metaspace, code cache, threads, Kafka's buffers. */
    private static final long JVM_OUTSIDE_HEAP = 512L << 20;
    /** The same for a Kafka Streams service, without RocksDB's stores (their budget is counted apart). */
    private static final long STREAMS_JVM_OUTSIDE_HEAP = 256L << 20;

    @Test
    void containerPortsAndServices_useEachServicesHttpPort() {
        for (String service : Repo.SERVICES) {
            int port = Repo.httpPort(service);
            Doc workload = Manifests.workloadOf(service);

            assertThat(Yaml.maps(Manifests.container(workload), "ports")).as(service)
                    .singleElement()
                    .satisfies(p -> {
                        assertThat(Yaml.string(p, "name")).isEqualTo("http");
                        assertThat(Yaml.integer(p, "containerPort")).isEqualTo(port);
                    });
            List<Doc> services = servicesSelecting(service);
            assertThat(services).as(service + ": a Service and the StatefulSet's headless one").hasSize(2);
            for (Doc svc : services) {
                assertThat(Yaml.maps(svc.spec(), "ports")).as(svc.where()).singleElement().satisfies(p -> {
                    assertThat(Yaml.integer(p, "port")).isEqualTo(port);
                    assertThat(Yaml.string(p, "targetPort")).isEqualTo("http");
                });
            }
            if ("StatefulSet".equals(workload.kind())) {
                assertThat(Yaml.string(workload.spec(), "serviceName")).as(service)
                        .isIn(services.stream().filter(s -> "None".equals(Yaml.stringOrNull(s.spec(), "clusterIP"))).map(Doc::name).toList());
            }
        }
    }

    @Test
    void probes_askTheHealthEndpoints_onTheHttpPort() {
        for (String service : Repo.SERVICES) {
            Map<String, Object> container = Manifests.container(Manifests.workloadOf(service));

            assertThat(Yaml.string(container, "readinessProbe", "httpGet", "path")).as(service).isEqualTo("/q/health/ready");
            assertThat(Yaml.string(container, "livenessProbe", "httpGet", "path")).as(service).isEqualTo("/q/health/live");
            assertThat(Yaml.string(container, "startupProbe", "httpGet", "path")).as(service).isEqualTo("/q/health/live");
            for (String probe : List.of("readinessProbe", "livenessProbe", "startupProbe")) {
                assertThat(Yaml.string(container, probe, "httpGet", "port")).as(service + " " + probe)
                        .isIn("http", Integer.toString(Repo.httpPort(service)));
            }
        }
        Map<String, Object> registry = Manifests.container(Manifests.workloadOf("registry"));
        assertThat(Yaml.string(registry, "readinessProbe", "httpGet", "path")).isEqualTo("/health/ready");
        assertThat(Yaml.string(registry, "livenessProbe", "httpGet", "path")).isEqualTo("/health/live");
        assertThat(Yaml.string(registry, "readinessProbe", "httpGet", "port")).isEqualTo("management");
    }

    @Test
    void everyWorkload_hasAPodDisruptionBudget_thatCoversEveryColor() {
        List<Doc> budgets = Manifests.ofKind(Manifests.base(), "PodDisruptionBudget");

        for (Doc workload : Manifests.workloads()) {
            Map<String, String> labels = Manifests.podLabels(workload);
            List<Doc> covering = budgets.stream().filter(b -> selects(Yaml.map(b.spec(), "selector", "matchLabels"), labels)).toList();

            assertThat(covering).as(workload.where() + ": exactly one PodDisruptionBudget (two would block every eviction)").hasSize(1);
            Doc budget = covering.get(0);
            assertThat(Yaml.strings(Yaml.map(budget.spec(), "selector", "matchLabels"))).as(budget.where())
                    .containsOnlyKeys(NAME);
            boolean bounded = budget.spec().containsKey("maxUnavailable") || budget.spec().containsKey("minAvailable");
            assertThat(bounded).as(budget.where() + " maxUnavailable or minAvailable").isTrue();
        }
    }

    @Test
    void versionAndColorLabels_markEachRelease_butNoSelectorNamesThem() {
        for (String service : Repo.SERVICES) {
            Doc workload = Manifests.workloadOf(service);
            Map<String, String> labels = Manifests.podLabels(workload);
            Map<String, String> selector = Yaml.strings(Yaml.map(workload.spec(), "selector", "matchLabels"));

            assertThat(labels).as(service).containsEntry(VERSION, Repo.version()).containsEntry(NAME, service).containsKey(COLOR);
            assertThat(Yaml.string(Manifests.container(workload), "image")).as(service)
                    .isEqualTo("tether/" + service + ":" + Repo.version());
            assertThat(workload.name()).as(service + ": the color is part of the name, so a second color runs beside it")
                    .isEqualTo(service + "-" + labels.get(COLOR));
            // a selector is immutable: with the version in it, no rollout could ever change the version
            assertThat(selector).as(workload.where() + " selector").doesNotContainKeys(VERSION, COLOR).containsEntry(NAME, service);
            for (Doc svc : servicesSelecting(service)) {
                assertThat(Yaml.strings(Yaml.map(svc.spec(), "selector"))).as(svc.where() + ": serves every color")
                        .containsOnlyKeys(NAME);
            }
        }
    }

    @Test
    void instanceIds_comeFromStablePodNames_andStreamsInstancesAdvertiseTheirAddress() {
        for (String service : Repo.SERVICES) {
            Doc workload = Manifests.workloadOf(service);
            Map<String, Object> container = Manifests.container(workload);

            assertThat(workload.kind()).as(service + ": pod names survive a restart only in a StatefulSet").isEqualTo("StatefulSet");
            assertThat(fieldRefOf(container, "TETHER_INSTANCE_ID")).as(service).isEqualTo("metadata.name");
            if (Repo.STREAMS_SERVICES.contains(service)) {
                assertThat(fieldRefOf(container, "TETHER_ADVERTISED_HOST")).as(service).isEqualTo("status.podIP");
                assertThat(volumeMountPath(container, "state")).as(service).isEqualTo(configValue("TETHER_STATE_DIR"));
                assertThat(Yaml.maps(workload.spec(), "volumeClaimTemplates")).as(service + " state volume")
                        .anySatisfy(claim -> assertThat(Yaml.string(claim, "metadata", "name")).isEqualTo("state"));
            }
            assertThat(Yaml.maps(container, "envFrom")).as(service + " configuration")
                    .anySatisfy(from -> assertThat(Yaml.stringOrNull(from, "configMapRef", "name")).isEqualTo("tether-config"));
        }
    }

    @Test
    void gracePeriods_letInFlightWorkFinish_theExecutorsOutlastingItsCommandTimeout() {
        Duration commandTimeout = Repo.commandTimeout();
        int executorGrace = Yaml.integer(Manifests.podSpec(Manifests.workloadOf("tool-executor")), "terminationGracePeriodSeconds");

        assertThat(Duration.ofSeconds(executorGrace)).as("executor grace period")
                .isGreaterThanOrEqualTo(commandTimeout.plusSeconds(30));
        for (String service : Repo.STREAMS_SERVICES) {
            int grace = Yaml.integer(Manifests.podSpec(Manifests.workloadOf(service)), "terminationGracePeriodSeconds");
            assertThat(grace).as(service + ": Kafka Streams commits and closes its transactions").isGreaterThanOrEqualTo(45);
        }
    }

    @Test
    void workspaces_areOneReadWriteManyVolume_writtenByTheExecutor_readOnlyForApprovals() {
        String root = configValue("TETHER_WORKSPACE_ROOT");

        assertThat(accessModesOf("tether-workspaces")).containsExactly("ReadWriteMany");
        assertThat(mountOf("tool-executor", "tether-workspaces")).as("executor").isEqualTo(new Mount(root, false));
        assertThat(mountOf("approval-service", "tether-workspaces")).as("approval-service").isEqualTo(new Mount(root, true));
        assertThat(mountOf("session-service", "tether-workspaces")).isNull();
        assertThat(mountOf("projector-service", "tether-workspaces")).isNull();
    }

    @Test
    void blobs_areOneReadWriteManyVolume_sharedByEveryServiceThatOffloads() {
        String directory = configValue("TETHER_SESSIONS_BLOBS_DIR");

        assertThat(accessModesOf("tether-blobs")).containsExactly("ReadWriteMany");
        for (String service : List.of("session-service", "tool-executor", "approval-service")) {
            assertThat(mountOf(service, "tether-blobs")).as(service).isEqualTo(new Mount(directory, false));
        }
    }

    @Test
    void pods_runAsTheSameUnprivilegedUser_soTheApprovalServiceCanReadTheExecutorsWorkspaces() {
        for (String service : Repo.SERVICES) {
            Map<String, Object> pod = Manifests.podSpec(Manifests.workloadOf(service));

            assertThat(Yaml.string(pod, "securityContext", "runAsNonRoot")).as(service).isEqualTo("true");
            assertThat(Yaml.integer(pod, "securityContext", "runAsUser")).as(service).isEqualTo(1001);
            assertThat(Yaml.list(Manifests.container(Manifests.workloadOf(service)), "securityContext", "capabilities", "drop"))
                    .as(service).containsExactly("ALL");
        }
    }

    @Test
    void streamsServicesHeap_leavesHalfTheMemoryLimit_toTheStoresAndTheJvmOutsideIt_andTheStoresBudgetFits() {
        for (String service : Repo.STREAMS_SERVICES) {
            Map<String, Object> container = Manifests.container(Manifests.workloadOf(service));
            long limit = memoryLimit(container);
            String javaOptions = javaOptions(service);

            // RocksDB's memtables and block caches (one set per store of every task, standbys included), metaspace,
            // threads and Kafka's buffers all live outside the heap: past the limit the pod is OOMKilled
            assertThat(heapBytes(javaOptions, limit)).as(service + ": heap of " + javaOptions + " under a limit of " + limit + " bytes")
                    .isLessThanOrEqualTo(limit / 2);
            assertThat(javaOptions).as(service + ": a heap that runs out stops the JVM, so Kubernetes restarts it")
                    .contains("-XX:+ExitOnOutOfMemoryError");
            // the stores' shared budget (RocksDbOptions, 512 MiB unless the container says) beside the heap and the JVM's own
            long stores = env(container, "TETHER_STORES_MEMORY_MB").map(mb -> Long.parseLong(mb) << 20).orElse(512L << 20);
            assertThat(heapBytes(javaOptions, limit) + stores + STREAMS_JVM_OUTSIDE_HEAP)
                    .as(service + ": heap + " + (stores >> 20) + " MiB of stores + " + (STREAMS_JVM_OUTSIDE_HEAP >> 20)
                            + " MiB of the JVM's own, under a limit of " + (limit >> 20) + " MiB")
                    .isLessThanOrEqualTo(limit);
        }
    }

    private static java.util.Optional<String> env(Map<String, Object> container, String variable) {
        return Yaml.maps(container, "env").stream().filter(e -> variable.equals(Yaml.string(e, "name"))).map(e -> Yaml.string(e, "value"))
                .findFirst();
    }

    @Test
    void executorsMemoryLimit_holdsItsHeap_andEveryCommandItMayRunAtOnce_atTheCommandsLimit() {
        Map<String, Object> container = Manifests.container(Manifests.workloadOf("tool-executor"));
        long limit = memoryLimit(container);
        String javaOptions = javaOptions("tool-executor");
        int concurrency = Integer.parseInt(executorSetting(container, "TETHER_EXECUTOR_CONCURRENCY", "tether.executor.concurrency"));
        long perCommand = Long.parseLong(executorSetting(container, "TETHER_EXECUTOR_COMMANDS_MEMORY_LIMIT_BYTES",
                "tether.executor.commands.memory-limit-bytes"));

        // the commands run in the executor's container: one that reaches the limit has the kernel kill the whole
        // container (cgroup v2's memory.oom.group), the executor and every other running call with it
        assertThat(heapBytes(javaOptions, limit) + JVM_OUTSIDE_HEAP + concurrency * perCommand)
                .as("tool-executor: heap (" + javaOptions + ") + " + JVM_OUTSIDE_HEAP + " beside it + " + concurrency + " commands of "
                        + perCommand + " bytes, under a limit of " + limit + " bytes")
                .isLessThanOrEqualTo(limit);
        assertThat(javaOptions).as("tool-executor").contains("-XX:+ExitOnOutOfMemoryError");
    }

    @Test
    void heapBytes_readsAnExplicitMaximum_aPercentage_orTheJvmsDefaultQuarter() {
        long gib = 1L << 30;

        assertThat(heapBytes("-Xmx512m -XX:MaxRAMPercentage=90", 4 * gib)).isEqualTo(512L << 20);
        assertThat(heapBytes("-XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError", 4 * gib)).isEqualTo(3 * gib);
        assertThat(heapBytes("-XX:MaxRAMPercentage=37.5", 4 * gib)).isEqualTo(3 * gib / 2);
        assertThat(heapBytes("-Dfoo=bar", 4 * gib)).isEqualTo(gib);
        assertThat(quantity("1536Mi")).isEqualTo(1536L << 20);
        assertThat(quantity("2G")).isEqualTo(2_000_000_000L);
    }

    private static long memoryLimit(Map<String, Object> container) {
        return quantity(Yaml.string(container, "resources", "limits", "memory"));
    }

    /** The JAVA_OPTS the container runs with: its own, or its image's. */
    private static String javaOptions(String service) {
        Map<String, Object> container = Manifests.container(Manifests.workloadOf(service));
        return Yaml.maps(container, "env").stream()
                .filter(e -> "JAVA_OPTS".equals(Yaml.string(e, "name")))
                .map(e -> Yaml.string(e, "value"))
                .findFirst()
                .orElseGet(() -> Repo.imageJavaOptions(service));
    }

    /** The largest heap the JVM takes under {@code limit}: -Xmx, else -XX:MaxRAMPercentage of it, else its default quarter. */
    static long heapBytes(String javaOptions, long limit) {
        Matcher xmx = Pattern.compile("(?:^|\\s)-Xmx(\\d+)([kKmMgG]?)(?:\\s|$)").matcher(javaOptions);
        if (xmx.find()) {
            int shift = switch (xmx.group(2).toLowerCase(java.util.Locale.ROOT)) {
                case "k" -> 10;
                case "m" -> 20;
                case "g" -> 30;
                default -> 0;
            };
            return Long.parseLong(xmx.group(1)) << shift;
        }
        Matcher percentage = Pattern.compile("-XX:MaxRAMPercentage=(\\d+(?:\\.\\d+)?)").matcher(javaOptions);
        double share = percentage.find() ? Double.parseDouble(percentage.group(1)) / 100 : 0.25;
        return (long) (limit * share);
    }

    /** A Kubernetes memory quantity in bytes: 768Mi, 2Gi, 2G, 1048576. */
    static long quantity(String quantity) {
        Matcher m = Pattern.compile("(\\d+)(Ki|Mi|Gi|Ti|k|M|G|T)?").matcher(quantity.strip());
        if (!m.matches()) {
            throw new AssertionError("not a memory quantity: " + quantity);
        }
        long value = Long.parseLong(m.group(1));
        return m.group(2) == null ? value : switch (m.group(2)) {
            case "Ki" -> value << 10;
            case "Mi" -> value << 20;
            case "Gi" -> value << 30;
            case "Ti" -> value << 40;
            case "k" -> value * 1_000L;
            case "M" -> value * 1_000_000L;
            case "G" -> value * 1_000_000_000L;
            default -> value * 1_000_000_000_000L;
        };
    }

    /** An executor setting as its container gets it: its own env, else tether-config, else application.properties. */
    private static String executorSetting(Map<String, Object> container, String variable, String property) {
        return Yaml.maps(container, "env").stream()
                .filter(e -> variable.equals(Yaml.string(e, "name")))
                .map(e -> Yaml.string(e, "value"))
                .findFirst()
                .or(() -> java.util.Optional.ofNullable(Yaml.strings(Yaml.map(KafkaTopicsTest.configMap().root(), "data")).get(variable)))
                .orElseGet(() -> Repo.defaultSetting("tool-executor", property));
    }

    private record Mount(String path, boolean readOnly) {}

    /** Where a service's container mounts the claim, or null when it does not. */
    private static Mount mountOf(String service, String claim) {
        Doc workload = Manifests.workloadOf(service);
        String volume = Yaml.maps(Manifests.podSpec(workload), "volumes").stream()
                .filter(v -> claim.equals(Yaml.stringOrNull(v, "persistentVolumeClaim", "claimName")))
                .map(v -> Yaml.string(v, "name"))
                .findFirst()
                .orElse(null);
        if (volume == null) {
            return null;
        }
        return Yaml.maps(Manifests.container(workload), "volumeMounts").stream()
                .filter(m -> volume.equals(Yaml.string(m, "name")))
                .map(m -> new Mount(Yaml.string(m, "mountPath"), "true".equals(Yaml.stringOrNull(m, "readOnly"))))
                .findFirst()
                .orElse(null);
    }

    private static String volumeMountPath(Map<String, Object> container, String volume) {
        return Yaml.maps(container, "volumeMounts").stream()
                .filter(m -> volume.equals(Yaml.string(m, "name")))
                .map(m -> Yaml.string(m, "mountPath"))
                .findFirst()
                .orElse(null);
    }

    private static List<String> accessModesOf(String claim) {
        Doc pvc = Manifests.ofKind(Manifests.base(), "PersistentVolumeClaim").stream()
                .filter(d -> claim.equals(d.name()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no PersistentVolumeClaim " + claim));
        return Yaml.list(pvc.spec(), "accessModes").stream().map(Objects::toString).toList();
    }

    private static String configValue(String key) {
        return Yaml.string(KafkaTopicsTest.configMap().root(), "data", key);
    }

    private static String fieldRefOf(Map<String, Object> container, String variable) {
        return Yaml.maps(container, "env").stream()
                .filter(e -> variable.equals(Yaml.string(e, "name")))
                .map(e -> Yaml.stringOrNull(e, "valueFrom", "fieldRef", "fieldPath"))
                .findFirst()
                .orElse(null);
    }

    private static List<Doc> servicesSelecting(String service) {
        return Manifests.ofKind(Manifests.base(), "Service").stream()
                .filter(s -> service.equals(Yaml.stringOrNull(s.spec(), "selector", NAME)))
                .toList();
    }

    private static boolean selects(Map<String, Object> selector, Map<String, String> labels) {
        return !selector.isEmpty() && selector.entrySet().stream()
                .allMatch(e -> Objects.toString(e.getValue()).equals(labels.get(e.getKey())));
    }
}
