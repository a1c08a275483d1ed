package dev.tether.testing;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.startsWith;

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

    @Test
    void openApiDocument_isServed() {
        given().queryParam("format", "json").when().get("/q/openapi").then()
                .statusCode(200)
                .body("openapi", startsWith("3."))
                .body("paths.keySet()", hasItems("/q/health/ready"));
    }
}
