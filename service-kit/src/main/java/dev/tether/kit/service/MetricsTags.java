package dev.tether.kit.service;

import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.config.MeterFilter;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Tags every metric with the service's name, so one Prometheus scrape config serves all four. */
public class MetricsTags {

    @Produces
    @Singleton
    MeterFilter applicationTag(@ConfigProperty(name = "quarkus.application.name") String application) {
        return MeterFilter.commonTags(List.of(Tag.of("application", application)));
    }
}
