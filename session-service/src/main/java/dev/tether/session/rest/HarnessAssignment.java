package dev.tether.session.rest;

import dev.tether.avro.HarnessVersion;
import dev.tether.avro.VersionState;
import dev.tether.common.kafka.SessionPartitioner;
import dev.tether.session.config.SessionServiceConfig;
import dev.tether.session.kafka.SessionStores;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Assigns a new session to a harness version by the weights in {@code harness-versions}: only
 * ACTIVE versions with a weight above 0 take new sessions, each in proportion to its weight. The
 * choice is a function of the sessionId, so a retried create lands on the same version.
 *
 * <p>The default version ({@code tether.sessions.default-harness-version}) counts as ACTIVE with
 * weight 100 until an operator registers it: setting {@code v2} to weight 10 then sends about
 * 10 of every 110 new sessions to v2, not all of them.
 */
@ApplicationScoped
public class HarnessAssignment {

    private static final int BUCKETS = 10_000;

    private final SessionStores stores;
    private final String defaultVersion;

    HarnessAssignment(SessionStores stores, SessionServiceConfig config) {
        this.stores = stores;
        this.defaultVersion = config.defaultHarnessVersion();
    }

    public String assign(String sessionId) {
        return pick(sessionId, List.copyOf(versions().values()), defaultVersion);
    }

    /** The registered versions, plus the default one while it is not registered. */
    public Map<String, HarnessVersion> versions() {
        var all = new LinkedHashMap<>(stores.harnessVersions());
        all.computeIfAbsent(defaultVersion, v -> HarnessVersion.newBuilder().setVersion(v).setWeight(100)
                .setState(VersionState.ACTIVE).setModelId(null).setUpdatedAt(Instant.EPOCH).setUpdatedBy("default").build());
        return all;
    }

    static String pick(String sessionId, List<HarnessVersion> versions, String defaultVersion) {
        List<HarnessVersion> candidates = versions.stream()
                .filter(v -> v.getState() == VersionState.ACTIVE && v.getWeight() > 0)
                .sorted(Comparator.comparing(HarnessVersion::getVersion))
                .toList();
        if (candidates.isEmpty()) {
            return defaultVersion;
        }
        int total = candidates.stream().mapToInt(HarnessVersion::getWeight).sum();
        // the same hash Kafka partitions by, spread over many buckets and scaled to the weights
        long point = (long) SessionPartitioner.partition(sessionId, BUCKETS) * total / BUCKETS;
        for (HarnessVersion v : candidates) {
            point -= v.getWeight();
            if (point < 0) {
                return v.getVersion();
            }
        }
        return candidates.get(candidates.size() - 1).getVersion();
    }
}
