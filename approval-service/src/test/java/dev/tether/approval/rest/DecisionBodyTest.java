package dev.tether.approval.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.approval.domain.DecisionKind;
import dev.tether.approval.domain.DecisionRequest;
import dev.tether.kit.service.rest.ApiException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A decision's body as {@link ApprovalResource} reads it: one reading only, or a 400 naming the field. */
class DecisionBodyTest {

    private final ObjectMapper json = new ObjectMapper();

    @Test
    void readsADecision() {
        DecisionRequest request = read("{\"decision\":\"GRANT_SESSION\",\"tool\":\"edit_file\",\"pathGlob\":\"src/**\","
                + "\"reason\":\"ok\",\"requestedAt\":\"2026-12-05T00:31:15.865Z\"}");
        assertThat(request.decision()).isEqualTo(DecisionKind.GRANT_SESSION);
        assertThat(request.pathGlob()).isEqualTo("src/**");
    }

    @Test
    void refusesABodyNamingTheDecisionTwice_ratherThanTakingTheLastOne() {
        // {"decision":"DENY", ..., "decision":"GRANT_SESSION"} reads as a denial to whatever reads the first member (a
        // log, a proxy, a person) and was a grant here: an ambiguous decision fails closed
        ApiException e = refused("{\"decision\":\"DENY\",\"reason\":\"no\",\"decision\":\"GRANT_SESSION\"}");
        assertThat(e.status()).isEqualTo(400);
        assertThat(e.body()).containsEntry("field", "decision");
        assertThat(refused("{\"decision\":\"GRANT_SESSION\",\"pathGlob\":\"src/**\",\"pathGlob\":\"**\"}").body())
                .containsEntry("field", "pathGlob");
        assertThat(refused("{\"decision\":\"DENY\",\"reason\":{\"a\":1,\"a\":2}}").body()).containsEntry("field", "reason.a");
    }

    @Test
    void refusesBadInput_withA400NamingTheField() {
        assertThat(refused("").body()).containsEntry("field", "decision");
        assertThat(refused("[]").body()).containsEntry("field", "decision");
        assertThat(refused("{\"decision\":\"grant_once\"}").body()).containsEntry("field", "decision");
        assertThat(refused("{\"decision\":\"DENY\",\"reason\":7}").body()).containsEntry("field", "reason");
        ApiException unknown = refused("{\"decision\":\"DENY\",\"ghp_" + "a".repeat(36) + "\":true}");
        assertThat(unknown.body()).as("the body named, not the member, whose name is client text").containsEntry("field", "(body)");
        assertThat(unknown.body().toString()).doesNotContain("ghp_").contains("its fields are decision, pathGlob, reason, requestedAt, tool");
        assertThat(refused("{\"decision\":\"DENY\",\"requestedAt\":\"yesterday\"}").body()).containsEntry("field", "requestedAt");
        assertThat(refused("{\"decision\":\"DENY\"}{}").body()).containsEntry("error", "malformed_json");
    }

    private DecisionRequest read(String body) {
        return ApprovalResource.decision(json, body.getBytes(StandardCharsets.UTF_8));
    }

    private ApiException refused(String body) {
        ApiException e = catchThrowableOfType(ApiException.class, () -> read(body));
        assertThat(e).as(body).isNotNull();
        assertThat(e.status()).as(body).isEqualTo(400);
        return e;
    }
}
