package dev.tether.session.rest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.avro.HarnessVersion;
import dev.tether.avro.VersionState;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class HarnessAssignmentTest {

    @Test
    void assignsNewSessions_inProportionToTheWeights() {
        var versions = List.of(version("v1", 90, VersionState.ACTIVE), version("v2", 10, VersionState.ACTIVE));
        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < 20_000; i++) {
            counts.merge(HarnessAssignment.pick(UUID.randomUUID().toString(), versions, "v1"), 1, Integer::sum);
        }
        assertThat(counts.get("v2") / 20_000.0).isBetween(0.08, 0.12);
    }

    @Test
    void drainingRetiredAndZeroWeightVersions_takeNoNewSessions() {
        var versions = List.of(version("v1", 50, VersionState.DRAINING), version("v2", 0, VersionState.ACTIVE),
                version("v3", 70, VersionState.RETIRED), version("v4", 1, VersionState.ACTIVE));
        for (int i = 0; i < 1000; i++) {
            assertThat(HarnessAssignment.pick("s-" + i, versions, "v1")).isEqualTo("v4");
        }
    }

    @Test
    void sameSessionId_alwaysGetsTheSameVersion_andNothingActiveMeansTheDefault() {
        var versions = List.of(version("a", 50, VersionState.ACTIVE), version("b", 50, VersionState.ACTIVE));
        assertThat(HarnessAssignment.pick("session-42", versions, "z")).isEqualTo(HarnessAssignment.pick("session-42", versions, "z"));
        assertThat(HarnessAssignment.pick("session-42", List.of(), "z")).isEqualTo("z");
    }

    private static HarnessVersion version(String name, int weight, VersionState state) {
        return HarnessVersion.newBuilder().setVersion(name).setWeight(weight).setState(state).setModelId(null)
                .setUpdatedAt(Instant.EPOCH).setUpdatedBy("ops").build();
    }
}
