package dev.tether.testing;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.startsWith;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.ConfigResource;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every Tether service answers, against the real broker and registry: health (with the
 * broker connection and the topic/schema checks), Prometheus metrics and an OpenAPI document.
 * A service's test extends it as a {@code @QuarkusTest} with {@link TetherStackResource}.
 */
public abstract class ServiceEndpointsContract {

    /** The service's {@code quarkus.application.name}. */
    protected abstract String serviceName();

    /** A service with a Kafka Streams application becomes ready once it first runs, seconds after start. */
    @BeforeEach
    void awaitReadiness() throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(90);
        while (given().get("/q/health/ready").statusCode() != 200 && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
    }

    @Test
    void readiness_isUp_withBrokerConnectionAndVerifiedTopics() {
        given().when().get("/q/health/ready").then()
                .statusCode(200)
                .body("status", equalTo("UP"))
                .body("checks.name", hasItems("Kafka connection health check", "tether-topics-and-schemas"))
                .body("checks.find { it.name == 'tether-topics-and-schemas' }.status", equalTo("UP"))
                .body("checks.find { it.name == 'tether-topics-and-schemas' }.data.subjects",
                        containsString("session-events-value (FULL_TRANSITIVE)"))
                .body("checks.find { it.name == 'Kafka connection health check' }.status", equalTo("UP"));
    }

    @Test
    void liveness_isUp() {
        given().when().get("/q/health/live").then().statusCode(200).body("status", equalTo("UP"));
    }

    @Test
    void metrics_areServedInThePrometheusFormat() {
        given().accept("text/plain").when().get("/q/metrics").then()
                .statusCode(200)
                .contentType(startsWith("text/plain"))
                .body(containsString("# TYPE jvm_threads_live_threads gauge"))
                .body(containsString("application=\"" + serviceName() + "\""));
    }

    /**
     * A Streams service's changelogs roll small segments and compact early (service-kit's {@code kafka-streams.topic.*}):
     * the cleaner never compacts a log's active segment, so at the broker's defaults (1 GiB) a new instance's restore
     * would replay every write ever made to a store instead of its live keys.
     */
    @Test
    void changelogs_rollSmallSegmentsThatCompact_soARestoreReadsTheLiveKeys_notEveryWrite() throws Exception {
        Optional<String> app = streamsApplication();
        if (app.isEmpty()) {
            return; // the tool-executor runs no Streams application
        }
        try (Admin admin = Admin.create(TetherStack.shared().clientConfig())) {
            List<String> changelogs = admin.listTopics().names().get(30, TimeUnit.SECONDS).stream()
                    .filter(t -> t.startsWith(app.get() + "-") && t.endsWith("-changelog")).sorted().toList();
            assertFalse(changelogs.isEmpty(), "no changelog of " + app.get());
            var resources = changelogs.stream().map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
            var configs = admin.describeConfigs(resources).all().get(30, TimeUnit.SECONDS);
            for (ConfigResource topic : resources) {
                var config = configs.get(topic);
                assertEquals(Map.of("segment.bytes", "16777216", "segment.ms", "600000", "min.cleanable.dirty.ratio", "0.25",
                                "cleanup.policy", "compact"),
                        Map.of("segment.bytes", config.get("segment.bytes").value(), "segment.ms", config.get("segment.ms").value(),
                                "min.cleanable.dirty.ratio", config.get("min.cleanable.dirty.ratio").value(),
                                "cleanup.policy", config.get("cleanup.policy").value()),
                        topic.name());
            }
        }
    }

    /** A Streams service tells when its stores (a standby's too) have caught up: the takeover docs/ARCHITECTURE.md describes. */
    @Test
    void aStreamsService_reportsItsStoresLag() {
        if (streamsApplication().isEmpty()) {
            return;
        }
        given().accept("text/plain").when().get("/q/metrics").then()
                .statusCode(200)
                .body(containsString("tether_streams_store_lag_records{application=\"" + serviceName() + "\""));
    }

    private static Optional<String> streamsApplication() {
        return ConfigProvider.getConfig().getOptionalValue("quarkus.kafka-streams.application-id", String.class);
    }

    @Test
    void openApiDocument_isServed() {
        given().queryParam("format", "json").when().get("/q/openapi").then()
                .statusCode(200)
                .body("openapi", startsWith("3."))
                .body("paths.keySet()", hasItems("/q/health/ready"));
    }

    /**
     * The document is the contract other languages' clients are generated from (docs/openapi/README.md): valid OpenAPI
     * 3.1, every request and every 2xx/4xx answer typed, and the very document committed as
     * {@code docs/openapi/<service>.json}, so a client built from the file cannot drift from the service.
     */
    @Test
    void openApiDocument_isValid_typesEveryBody_andIsTheCommittedOne() throws Exception {
        String served = given().queryParam("format", "json").when().get("/q/openapi").then().statusCode(200).extract().asString();
        JsonNode document = new ObjectMapper().readTree(served);
        assertEquals(List.of(), OpenApiDocuments.problems(document), "the document is not valid OpenAPI");
        assertEquals(List.of(), OpenApiDocuments.untypedBodies(document), "bodies no client can generate a type from");
        Path root = Path.of(System.getProperty("tether-test.root", "..")).toAbsolutePath().normalize();
        String difference = OpenApiDocuments.committedDifference(root, serviceName(), document);
        assertNull(difference, difference);
    }
}
