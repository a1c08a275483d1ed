package dev.tether.approval;

import static dev.tether.approval.TetherServices.APPROVER;
import static dev.tether.approval.TetherServices.await;
import static dev.tether.approval.TetherServices.call;
import static dev.tether.approval.TetherServices.get;
import static dev.tether.approval.TetherServices.is;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** An approval nobody decides expires: the service denies it in its own name, and the model gets an error result. */
class ApprovalExpiryIT {

    private static TetherServices services;

    @BeforeAll
    static void start() throws IOException {
        services = TetherServices.start("approval-expiry", false,
                Map.of("TETHER_APPROVAL_TIMEOUT", "PT5S", "TETHER_APPROVALS_SWEEP_INTERVAL", "PT1S"));
    }

    @AfterAll
    static void stop() {
        if (services != null) {
            services.close();
        }
    }

    @Test
    void anApprovalNobodyDecides_expires_asADenialInTheServicesName_followedByAnErrorResult() {
        String id = services.createSession("WRITE");
        services.ask(id, call("c1", "run_command", "{\"command\":\"make deploy\"}"));
        JsonNode item = services.awaitItem(id, "c1"); // any status: under load, it may have expired before a poll saw it pending
        assertThat(item.get("expiresAt").asText()).isNotBlank();

        JsonNode denial = services.awaitEvent(id, "the expiry", is("approval_denied", "c1"));
        assertThat(denial.get("approver").asText()).isEqualTo("approval-service");
        assertThat(denial.get("actor").get("kind").asText()).isEqualTo("SYSTEM");
        assertThat(denial.get("reason").asText()).contains("no approver decided within 5s");
        assertThat(denial.get("expired").isBoolean() && denial.get("expired").booleanValue()).as("the denial says it is an expiry")
                .isTrue();
        JsonNode result = services.awaitEvent(id, "the error result", is("tool_result", "c1"));
        assertThat(result.get("status").asText()).isEqualTo("ERROR");
        assertThat(result.get("content").asText()).contains("no approver decided within 5s").contains("nothing was run");

        String itemId = item.get("id").asText();
        JsonNode expired = await("the item expired").until(() -> get(services.approvals() + "/" + itemId, APPROVER).body(),
                i -> i.get("status").asText().equals("EXPIRED"));
        assertThat(expired.has("decision")).isFalse();
        var late = services.decide(itemId, APPROVER, Map.of("decision", "GRANT_ONCE"));
        assertThat(late.status()).isEqualTo(409);
        assertThat(services.events(id).stream().filter(is("approval_denied", "c1")).count()).as("expired once").isEqualTo(1);
    }
}
