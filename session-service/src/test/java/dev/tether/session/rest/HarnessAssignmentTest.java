package dev.tether.session.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.kit.service.rest.ApiException;
import dev.tether.session.domain.HarnessVersion;
import dev.tether.session.domain.HarnessVersion.State;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class HarnessAssignmentTest {

    @Test
    void aWeightIsThePercentOfNewSessions_andTheDefaultVersionTakesTheRest() {
        var versions = List.of(version("v1", 0, State.ACTIVE), version("v2", 10, State.ACTIVE));
        assertThat(shareOf("v2", versions, "v1")).isBetween(0.085, 0.115);
        assertThat(HarnessAssignment.shares(versions, "v1")).isEqualTo(Map.of("v1", 90.0, "v2", 10.0));
    }

    @Test
    void theDefaultVersionsOwnWeight_countsOnTopOfTheRest_andEveryWeightMeansWhatItSays() {
        var versions = List.of(version("v1", 20, State.ACTIVE), version("v2", 30, State.ACTIVE),
                version("v3", 10, State.ACTIVE));
        assertThat(HarnessAssignment.shares(versions, "v1")).isEqualTo(Map.of("v1", 60.0, "v2", 30.0, "v3", 10.0));
        assertThat(shareOf("v2", versions, "v1")).isBetween(0.27, 0.33);
        assertThat(shareOf("v3", versions, "v1")).isBetween(0.085, 0.115);
    }

    @Test
    void withoutAnActiveDefault_theActiveVersionsShareEverything_inProportionToTheirWeights() {
        var versions = List.of(version("v1", 0, State.DRAINING), version("v2", 10, State.ACTIVE),
                version("v3", 30, State.ACTIVE));
        assertThat(HarnessAssignment.shares(versions, "v1")).isEqualTo(Map.of("v1", 0.0, "v2", 25.0, "v3", 75.0));
        assertThat(shareOf("v2", versions, "v1")).isBetween(0.22, 0.28);
        assertThat(shareOf("v1", versions, "v1")).isZero();
    }

    @Test
    void drainingRetiredAndZeroWeightVersions_takeNoNewSessions() {
        var versions = List.of(version("v1", 50, State.DRAINING), version("v2", 0, State.ACTIVE),
                version("v3", 70, State.RETIRED), version("v4", 1, State.ACTIVE));
        for (int i = 0; i < 1000; i++) {
            assertThat(HarnessAssignment.pick("s-" + i, versions, "v1")).isEqualTo("v4");
        }
        assertThat(HarnessAssignment.shares(versions, "v1")).containsEntry("v4", 100.0).containsEntry("v1", 0.0);
    }

    @Test
    void sameSessionId_alwaysGetsTheSameVersion_andNothingActiveMeansTheDefault() {
        var versions = List.of(version("a", 50, State.ACTIVE), version("b", 50, State.ACTIVE));
        assertThat(HarnessAssignment.pick("session-42", versions, "z")).isEqualTo(HarnessAssignment.pick("session-42", versions, "z"));
        assertThat(HarnessAssignment.pick("session-42", List.of(), "z")).isEqualTo("z");
        var drained = List.of(version("z", 0, State.DRAINING));
        assertThat(HarnessAssignment.pick("session-42", drained, "z")).isEqualTo("z");
        assertThat(HarnessAssignment.shares(drained, "z")).isEqualTo(Map.of("z", 100.0));
    }

    @Test
    void refusesWeights_thatWouldTotalMoreThan100_namingTheField() {
        var current = Map.of("v1", version("v1", 80, State.ACTIVE), "v2", version("v2", 10, State.ACTIVE),
                "v3", version("v3", 90, State.DRAINING));
        HarnessAssignment.checkTotal(current, version("v2", 20, State.ACTIVE)); // 100: allowed
        HarnessAssignment.checkTotal(current, version("v3", 0, State.DRAINING));
        assertThatThrownBy(() -> HarnessAssignment.checkTotal(current, version("v2", 21, State.ACTIVE)))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(400);
                    assertThat(e.body()).containsEntry("field", "weight").containsEntry("error", "invalid_field");
                    assertThat((String) e.body().get("message")).contains("would total 101 (v1 80, v2 21)");
                });
        assertThatThrownBy(() -> HarnessAssignment.checkTotal(current, version("v4", 30, State.ACTIVE)))
                .isInstanceOf(ApiException.class);
    }

    @Test
    void aVersionThatNamesAModel_pinsItsNewSessionsToIt() {
        HarnessVersion v2 = version("v2", 10, State.ACTIVE, "model-2");
        assertThat(HarnessAssignment.pinTo("v2", v2, null)).isEqualTo(new HarnessAssignment.Pin("v2", "model-2"));
        assertThat(HarnessAssignment.pinTo("v2", v2, "model-2")).isEqualTo(new HarnessAssignment.Pin("v2", "model-2"));
    }

    @Test
    void aCreateNamingAnotherModelThanItsVersions_isRefused_namingTheField() {
        HarnessVersion v2 = version("v2", 10, State.ACTIVE, "model-2");
        assertThatThrownBy(() -> HarnessAssignment.pinTo("v2", v2, "model-x")).isInstanceOfSatisfying(ApiException.class, e -> {
            assertThat(e.status()).isEqualTo(409);
            assertThat(e.body()).containsEntry("error", "model_pinned").containsEntry("field", "modelId")
                    .containsEntry("harnessVersion", "v2").containsEntry("modelId", "model-2");
            assertThat(e.body().toString()).doesNotContain("model-x"); // no request content in an error
        });
    }

    @Test
    void aVersionWithoutAModel_takesTheCreatesModel_whichIsThenRequired() {
        assertThat(HarnessAssignment.pinTo("v1", version("v1", 0, State.ACTIVE), "model-x"))
                .isEqualTo(new HarnessAssignment.Pin("v1", "model-x"));
        assertThat(HarnessAssignment.pinTo("v7", null, "model-x")).isEqualTo(new HarnessAssignment.Pin("v7", "model-x"));
        assertThat(HarnessAssignment.pinTo("v3", version("v3", 0, State.ACTIVE, " "), "model-x")).as("stored before blanks were refused")
                .isEqualTo(new HarnessAssignment.Pin("v3", "model-x"));
        assertThatThrownBy(() -> HarnessAssignment.pinTo("v1", version("v1", 0, State.ACTIVE), null))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(400);
                    assertThat(e.body()).containsEntry("field", "modelId");
                });
    }

    @Test
    void aCreateNamingARetiredVersion_isRefused_namingHarnessVersion_andOneNamingADrainingOrUnregisteredVersion_isPinnedToIt() {
        Map<String, HarnessVersion> registered = Map.of("v1", version("v1", 0, State.ACTIVE, "model-1"),
                "v2", version("v2", 0, State.RETIRED, "model-2"), "v3", version("v3", 0, State.DRAINING, "model-3"));
        Map<String, HarnessVersion> versions = HarnessAssignment.versions(registered, "v1");

        assertThatThrownBy(() -> HarnessAssignment.pin("s-1", "v2", null, versions, "v1"))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(422);
                    assertThat(e.body()).containsEntry("error", "version_retired").containsEntry("field", "harnessVersion")
                            .containsEntry("harnessVersion", "v2");
                    assertThat((String) e.body().get("message")).contains("harness version v2 is RETIRED");
                });
        assertThat(HarnessAssignment.pin("s-1", "v3", null, versions, "v1")).as("draining").isEqualTo(new HarnessAssignment.Pin("v3", "model-3"));
        assertThat(HarnessAssignment.pin("s-1", "v9", "model-x", versions, "v1")).as("unregistered")
                .isEqualTo(new HarnessAssignment.Pin("v9", "model-x"));
        assertThat(HarnessAssignment.pin("s-1", "v1", null, versions, "v1")).isEqualTo(new HarnessAssignment.Pin("v1", "model-1"));
    }

    @Test
    void aCreateNamingTheDefaultVersion_whileNobodyRegisteredIt_isPinnedToIt() {
        Map<String, HarnessVersion> versions = HarnessAssignment.versions(Map.of(), "v1");
        assertThat(HarnessAssignment.pin("s-1", "v1", "model-x", versions, "v1")).isEqualTo(new HarnessAssignment.Pin("v1", "model-x"));
    }

    @Test
    void withoutARequestedVersion_theWeightsChoose_andARetiredOrDrainingDefaultStillTakesWhatNoActiveVersionCan() {
        Map<String, HarnessVersion> drained = HarnessAssignment.versions(Map.of("v1", version("v1", 0, State.RETIRED)), "v1");
        assertThat(HarnessAssignment.pin("s-1", null, "model-x", drained, "v1")).isEqualTo(new HarnessAssignment.Pin("v1", "model-x"));
        Map<String, HarnessVersion> weighted = HarnessAssignment.versions(Map.of("v1", version("v1", 0, State.DRAINING),
                "v2", version("v2", 10, State.ACTIVE, "model-2")), "v1");
        assertThat(HarnessAssignment.pin("s-1", null, null, weighted, "v1")).isEqualTo(new HarnessAssignment.Pin("v2", "model-2"));
    }

    @Test
    void aTenantsVersions_areItsOwn_andTheEntriesOfNoTenant_itHasNotRegisteredItself_neverAnotherTenants() {
        var legacyV1 = new HarnessVersion("v1", 100, State.ACTIVE, null, Instant.EPOCH, "ops", null);
        var legacyV2 = new HarnessVersion("v2", 0, State.DRAINING, null, Instant.EPOCH, "ops", null);
        var acmeV2 = version("v2", 30, State.ACTIVE);
        var globexV3 = new HarnessVersion("v3", 100, State.ACTIVE, null, Instant.EPOCH, "g-ops", "globex");
        var globexV1 = new HarnessVersion("v1", 0, State.RETIRED, null, Instant.EPOCH, "g-ops", "globex");
        List<HarnessVersion> all = List.of(globexV3, acmeV2, legacyV1, globexV1, legacyV2);

        assertThat(HarnessAssignment.ofTenant(all, "acme")).containsExactly(Map.entry("v1", legacyV1), Map.entry("v2", acmeV2));
        assertThat(HarnessAssignment.ofTenant(all, "globex")).containsExactly(Map.entry("v1", globexV1), Map.entry("v2", legacyV2),
                Map.entry("v3", globexV3));
        assertThat(HarnessAssignment.ofTenant(all, "initech")).containsExactly(Map.entry("v1", legacyV1), Map.entry("v2", legacyV2));
        // globex retiring its v1 refuses none of acme's creates naming v1
        assertThat(HarnessAssignment.pin("s-1", "v1", "m", HarnessAssignment.versions(HarnessAssignment.ofTenant(all, "acme"), "v1"),
                "v1")).isEqualTo(new HarnessAssignment.Pin("v1", "m"));
    }

    private static double shareOf(String name, List<HarnessVersion> versions, String defaultVersion) {
        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < 20_000; i++) {
            counts.merge(HarnessAssignment.pick(UUID.randomUUID().toString(), versions, defaultVersion), 1, Integer::sum);
        }
        return counts.getOrDefault(name, 0) / 20_000.0;
    }

    private static HarnessVersion version(String name, int weight, State state) {
        return version(name, weight, state, null);
    }

    private static HarnessVersion version(String name, int weight, State state, String model) {
        return new HarnessVersion(name, weight, state, model, Instant.EPOCH, "ops", "acme");
    }
}
