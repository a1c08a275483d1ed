package dev.tether.session.rest;

import dev.tether.kit.kafka.SessionPartitioner;
import dev.tether.kit.service.rest.ApiException;
import dev.tether.session.config.SessionServiceConfig;
import dev.tether.session.domain.HarnessVersion;
import dev.tether.session.kafka.SessionStores;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Pins a new session to a harness version and a model. A tenant's sessions are assigned among the tenant's versions
 * ({@link #ofTenant}): its own entries, and those written before versions were a tenant's; another tenant's weights,
 * states and models never count.
 *
 * <p><b>Weights are percentages.</b> Each ACTIVE version takes its weight, in percent, of new sessions;
 * the default version ({@code tether.sessions.default-harness-version}) takes what is left over
 * (100 minus the other weights) on top of its own weight. Setting {@code v2} to 10 next to an
 * unregistered default {@code v1} sends 10 % of new sessions to v2 and 90 % to v1. The ACTIVE
 * weights may total at most 100 ({@link #checkTotal}). When the default version is not ACTIVE
 * (draining or retired), the ACTIVE versions share all new sessions in proportion to their weights;
 * when no version can take them, they go to the default version. The choice is a function of the
 * sessionId, so a retried create lands on the same version.
 *
 * <p><b>A version the create names</b> instead is taken whatever its weight, unless it is RETIRED (422
 * {@code version_retired}, field {@code harnessVersion}, {@link #notRetired}).
 *
 * <p><b>Models.</b> A version that names a model pins its new sessions to it: a create that names
 * no model gets the version's; one that names another model is refused ({@code 409 model_pinned},
 * field {@code modelId}) rather than silently run on a model the caller did not ask for. A version
 * that names no model takes the model the create names, which is then required.
 */
@ApplicationScoped
public class HarnessAssignment {

    private static final int BUCKETS = 10_000;

    /** A new session's harness version and model. */
    public record Pin(String version, String modelId) {}

    private final SessionStores stores;
    private final String defaultVersion;

    HarnessAssignment(SessionStores stores, SessionServiceConfig config) {
        this.stores = stores;
        this.defaultVersion = config.defaultHarnessVersion();
    }

    /**
     * The version and model of a new session.
     *
     * @param requestedVersion the version the create names, or null to assign one by the weights
     * @param requestedModel   the model the create names, or null for the version's model
     * @throws ApiException 422 {@code version_retired}, field {@code harnessVersion}, when the create names a RETIRED
     *                      version ({@link #notRetired}); 400 {@code invalid_field} {@code modelId} when neither names a model,
     *                      409 {@code model_pinned} when they name different ones
     */
    public Pin pin(String tenantId, String sessionId, String requestedVersion, String requestedModel) {
        return pin(sessionId, requestedVersion, requestedModel, versions(tenantId), defaultVersion);
    }

    /** {@link #pin} among {@code versions} (as {@link #versions} has them: the default version among them). */
    static Pin pin(String sessionId, String requestedVersion, String requestedModel, Map<String, HarnessVersion> versions,
                   String defaultVersion) {
        if (requestedVersion != null) {
            return pinTo(requestedVersion, notRetired(requestedVersion, versions.get(requestedVersion)), requestedModel);
        }
        String version = pick(sessionId, List.copyOf(versions.values()), defaultVersion);
        return pinTo(version, versions.get(version), requestedModel);
    }

    /**
     * The entry of the version a create names (null if not registered), unless it is RETIRED: no worker runs a RETIRED
     * version, and a session pinned there would wait for one forever, so the create is refused, 422 naming
     * {@code harnessVersion}, as a migration to one is (naming {@code toVersion}). The weights are the assignment's, not
     * a limit on what a harness may name: a DRAINING version is still taken (its harness's workers run until its sessions
     * end; the draining count then includes the new one), and so is an unregistered one (a harness that labels its version
     * with no operator's registration, as when none is registered at all).
     */
    private static HarnessVersion notRetired(String version, HarnessVersion entry) {
        if (entry != null && entry.state() == HarnessVersion.State.RETIRED) {
            throw new ApiException(422, "version_retired", "harness version " + version + " is RETIRED: no worker runs it, and a"
                    + " session pinned there would wait for none; leave harnessVersion out to be assigned one, or name another version")
                    .with("field", "harnessVersion").with("harnessVersion", version);
        }
        return entry;
    }

    /**
     * The tenant's registered versions, plus the default one while it is not registered (ACTIVE, weight 0: it takes the
     * rest).
     */
    public Map<String, HarnessVersion> versions(String tenantId) {
        return versions(ofTenant(stores.harnessVersions(), tenantId), defaultVersion);
    }

    /**
     * The tenant's entries among {@code entries}, by version in name order: its own, and those written before versions were
     * a tenant's (no tenant) of a version it has not registered itself. Another tenant's are never among them.
     */
    static Map<String, HarnessVersion> ofTenant(List<HarnessVersion> entries, String tenantId) {
        var everyTenants = new TreeMap<String, HarnessVersion>();
        var own = new TreeMap<String, HarnessVersion>();
        for (HarnessVersion entry : entries) {
            if (entry.tenantId() == null) {
                everyTenants.put(entry.version(), entry);
            } else if (entry.tenantId().equals(tenantId)) {
                own.put(entry.version(), entry);
            }
        }
        everyTenants.putAll(own);
        return new LinkedHashMap<>(everyTenants);
    }

    static Map<String, HarnessVersion> versions(Map<String, HarnessVersion> registered, String defaultVersion) {
        var all = new LinkedHashMap<>(registered);
        all.computeIfAbsent(defaultVersion, HarnessVersion::unregisteredDefault);
        return all;
    }

    /** Each of the tenant's versions' share of its new sessions, in percent (0-100), as {@link #pick} assigns them. */
    public Map<String, Double> shares(String tenantId) {
        return shares(List.copyOf(versions(tenantId).values()), defaultVersion);
    }

    public String defaultVersion() {
        return defaultVersion;
    }

    static Pin pinTo(String version, HarnessVersion entry, String requestedModel) {
        // a blank model, which only an entry written before blank ones were refused can have, pins none
        String pinned = entry == null || entry.modelId() == null || entry.modelId().isBlank() ? null : entry.modelId();
        if (pinned == null) {
            if (requestedModel == null) {
                throw ApiException.badRequest("modelId", "is required: harness version " + version + " names no model");
            }
            return new Pin(version, requestedModel);
        }
        if (requestedModel != null && !requestedModel.equals(pinned)) {
            throw new ApiException(409, "model_pinned", "harness version " + version + " pins its new sessions to model " + pinned
                    + ": send that modelId, or none").with("field", "modelId").with("harnessVersion", version).with("modelId", pinned);
        }
        return new Pin(version, pinned);
    }

    /**
     * Refuses an update that would make the ACTIVE weights total more than 100 percent.
     *
     * @param current the versions as they are
     * @param updated the entry about to replace (or join) them
     */
    static void checkTotal(Map<String, HarnessVersion> current, HarnessVersion updated) {
        var after = new LinkedHashMap<>(current);
        after.put(updated.version(), updated);
        List<HarnessVersion> active = after.values().stream()
                .filter(v -> v.active() && v.weight() > 0)
                .sorted(Comparator.comparing(HarnessVersion::version)).toList();
        int total = active.stream().mapToInt(HarnessVersion::weight).sum();
        if (total > 100) {
            throw ApiException.badRequest("weight", "weights are percentages of new sessions: the ACTIVE versions would total " + total
                    + " (" + active.stream().map(v -> v.version() + " " + v.weight()).collect(Collectors.joining(", "))
                    + "), at most 100 is allowed; lower another version's weight first");
        }
    }

    static String pick(String sessionId, List<HarnessVersion> versions, String defaultVersion) {
        Map<String, Integer> slots = slots(versions, defaultVersion);
        int total = slots.values().stream().mapToInt(Integer::intValue).sum();
        if (total == 0) {
            return defaultVersion;
        }
        // the same hash Kafka partitions by, spread over many buckets and scaled to the slots
        long point = (long) SessionPartitioner.partition(sessionId, BUCKETS) * total / BUCKETS;
        String last = defaultVersion;
        for (var slot : slots.entrySet()) {
            point -= slot.getValue();
            last = slot.getKey();
            if (point < 0) {
                return slot.getKey();
            }
        }
        return last;
    }

    static Map<String, Double> shares(List<HarnessVersion> versions, String defaultVersion) {
        Map<String, Integer> slots = slots(versions, defaultVersion);
        int total = slots.values().stream().mapToInt(Integer::intValue).sum();
        var shares = new LinkedHashMap<String, Double>();
        versions.stream().map(HarnessVersion::version).sorted().forEach(v -> shares.put(v, 0.0));
        if (total == 0) {
            shares.put(defaultVersion, 100.0);
        } else {
            slots.forEach((v, w) -> shares.put(v, 100.0 * w / total));
        }
        return shares;
    }

    /**
     * Each version that takes new sessions, in name order, with its part of them: its weight, plus the rest of 100 for an
     * ACTIVE default version. Without an ACTIVE default the parts are the bare weights (scaled by their sum when picking).
     */
    private static Map<String, Integer> slots(List<HarnessVersion> versions, String defaultVersion) {
        List<HarnessVersion> active = versions.stream()
                .filter(HarnessVersion::active)
                .sorted(Comparator.comparing(HarnessVersion::version))
                .toList();
        int weights = active.stream().mapToInt(HarnessVersion::weight).sum();
        boolean defaultActive = active.stream().anyMatch(v -> v.version().equals(defaultVersion));
        var slots = new LinkedHashMap<String, Integer>();
        for (HarnessVersion v : active) {
            int part = v.weight() + (defaultActive && v.version().equals(defaultVersion) ? Math.max(0, 100 - weights) : 0);
            if (part > 0) {
                slots.put(v.version(), part);
            }
        }
        return slots;
    }
}
