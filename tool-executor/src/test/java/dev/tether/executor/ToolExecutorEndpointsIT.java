package dev.tether.executor;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;

import dev.tether.testing.ServiceEndpointsContract;
import dev.tether.testing.TetherStackResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

@QuarkusTest
@QuarkusTestResource(TetherStackResource.class)
class ToolExecutorEndpointsIT extends ServiceEndpointsContract {

    @Override
    protected String serviceName() {
        return "tool-executor";
    }

    /** The executor's own meters: the calls it read and has not ended, and what its ledger holds (tool-executor README). */
    @Test
    void metrics_showTheCallsInProgress_andTheLedgersWindows() {
        given().accept("text/plain").when().get("/q/metrics").then()
                .statusCode(200)
                .body(containsString("tether_executor_calls_in_progress{"))
                .body(containsString("tether_executor_ledger_cached_calls{"))
                .body(containsString("tether_executor_ledger_records_read_total{"));
    }
}
