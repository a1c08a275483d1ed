package dev.tether.testing;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * A Quarkus service's configuration as its files define it: the defaults jars bring
 * ({@code META-INF/microprofile-config.properties}, ordinal 100) under the service's {@code application.properties}
 * (ordinal 250), in the prod profile, with expressions expanded — and no environment variables or system
 * properties, so a test can pin what a service starts with wherever it runs. Stateless.
 */
public final class ServiceConfiguration {

    private ServiceConfiguration() {}

    /** Every property whose name starts with one of {@code prefixes}, by name, its value expanded. */
    public static Map<String, String> properties(String... prefixes) {
        SmallRyeConfig config = load();
        var out = new TreeMap<String, String>();
        for (String name : config.getPropertyNames()) {
            for (String prefix : prefixes) {
                if (name.startsWith(prefix)) {
                    out.put(name, config.getValue(name, String.class));
                }
            }
        }
        return out;
    }

    private static SmallRyeConfig load() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        var builder = new SmallRyeConfigBuilder().withProfile("prod");
        try {
            for (URL defaults : Collections.list(loader.getResources("META-INF/microprofile-config.properties"))) {
                builder.withSources(new PropertiesConfigSource(defaults, 100));
            }
            URL application = loader.getResource("application.properties");
            if (application == null) {
                throw new IllegalStateException("no application.properties on the class path");
            }
            builder.withSources(new PropertiesConfigSource(application, 250));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return builder.build();
    }
}
