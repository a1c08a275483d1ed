package dev.tether.testing;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.kafka.KafkaContainer;

/**
 * The stack in containers, for machines with a Docker engine: the official Apache Kafka image and
 * the Apicurio Registry image, at the versions the local launcher runs.
 */
final class ContainerStack extends TetherStack {

    static final String KAFKA_IMAGE = "apache/kafka:4.1.2";
    static final String REGISTRY_IMAGE = "apicurio/apicurio-registry:3.3.3";

    private final java.nio.file.Path scratch;
    private final Network network;
    private final KafkaContainer kafka;
    private final GenericContainer<?> registry;

    private ContainerStack(Network network, KafkaContainer kafka, GenericContainer<?> registry) {
        this.network = network;
        this.kafka = kafka;
        try {
            this.scratch = java.nio.file.Files.createTempDirectory("tether-stack-scratch-");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        this.registry = registry;
    }

    @SuppressWarnings("resource") // closed in stop()
    static ContainerStack start() {
        var network = Network.newNetwork();
        var kafka = new KafkaContainer(KAFKA_IMAGE)
                .withNetwork(network)
                .withEnv("KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR", "1")
                .withEnv("KAFKA_TRANSACTION_STATE_LOG_MIN_ISR", "1")
                .withEnv("KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "0");
        var registry = new GenericContainer<>(REGISTRY_IMAGE)
                .withNetwork(network)
                .withExposedPorts(8080)
                .withEnv("APICURIO_RULES_GLOBAL_COMPATIBILITY", "BACKWARD")
                .waitingFor(Wait.forHttp("/apis/registry/v3/system/info").forStatusCode(200));
        kafka.start();
        registry.start();
        return new ContainerStack(network, kafka, registry);
    }

    @Override
    public String bootstrapServers() {
        return kafka.getBootstrapServers();
    }

    @Override
    public String registryUrl() {
        return "http://" + registry.getHost() + ":" + registry.getMappedPort(8080) + "/apis/registry/v3";
    }

    @Override
    public String ccompatUrl() {
        return "http://" + registry.getHost() + ":" + registry.getMappedPort(8080) + "/apis/ccompat/v7";
    }

    @Override
    java.nio.file.Path scratchRoot() {
        return scratch;
    }

    @Override
    void stop() {
        registry.stop();
        kafka.stop();
        network.close();
        try (var paths = java.nio.file.Files.walk(scratch)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (java.io.IOException e) {
            System.err.println("tether-stack: could not delete " + scratch + ": " + e);
        }
    }
}
