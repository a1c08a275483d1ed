package dev.tether.testing;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What the store-upgrade ITs of the services share (docs/ARCHITECTURE.md §5, "Store formats"): a packaged service run as
 * the previous release wrote its stores, the format its changelogs hold, and a restart without its state directory.
 * Each IT runs its service through {@link ServiceProcess} as it would run any other, and decides itself what the same
 * answers are.
 */
public final class StoreUpgrade {

    /** The version a value of a versioned store format carries: its first field (docs/ARCHITECTURE.md §5). */
    private static final Pattern VERSIONED = Pattern.compile("^\\{\"version\":(\\d+),");

    /** What {@link #versions} says of a value without a version field: version 0, the releases before versions. */
    public static final String UNVERSIONED = "unversioned";

    private StoreUpgrade() {}

    /**
     * The system properties that make a service write {@code stores} as the releases before versioned formats did
     * ({@code tether.stores.write-version.<store>=0}: byte for byte the unversioned JSON, which each service's v0
     * golden files pin).
     */
    public static List<String> asThePreviousRelease(String... stores) {
        return Stream.of(stores).map(store -> "-Dtether.stores.write-version." + store + "=0").toList();
    }

    /** The changelog topic of {@code store} of the Kafka Streams application {@code applicationId}. */
    public static String changelog(String applicationId, String store) {
        return applicationId + "-" + store + "-changelog";
    }

    /**
     * Key → the version of its latest value in {@code changelog} (committed records only), or {@link #UNVERSIONED}; a
     * key whose latest record is a tombstone is left out.
     */
    public static Map<String, String> versions(String changelog) {
        var versions = new LinkedHashMap<String, String>();
        TopicReader.latestByKey(changelog).forEach((key, value) -> {
            var versioned = VERSIONED.matcher(new String(value, StandardCharsets.UTF_8));
            versions.put(key, versioned.find() ? versioned.group(1) : UNVERSIONED);
        });
        return versions;
    }

    /**
     * Deletes the (stopped) service's state directory, so that its next start restores every store from its changelog
     * alone.
     */
    public static void deleteState(ServiceProcess service) {
        if (service.isAlive()) {
            throw new IllegalStateException("the service is running: stop it before deleting its state");
        }
        Trees.delete(service.stateDirectory());
    }
}
