package dev.tether.reliability.fuzz;

import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * How many of each property's {@code tries} {@link EndpointFuzzIT} runs: the share of system property
 * {@value #SCALE} (0 &lt; share &le; 1; 1, all of them, when it is not set). The build sets 0.2 (the reliability pom's
 * {@code tether-fuzz.scale}), so CI runs about 2,000 of the 10,000 cases, every property and every check of the run
 * included; {@code reliability/run --full} sets 1 and runs them all (the published {@code fuzz.json}).
 */
public final class FuzzTries implements AroundPropertyHook {

    static final String SCALE = "tether-fuzz.scale";

    /** The share of the full count this JVM runs. */
    static double scale() {
        String value = System.getProperty(SCALE, "").trim();
        double scale = value.isEmpty() ? 1 : Double.parseDouble(value);
        if (!(scale > 0 && scale <= 1)) {
            throw new IllegalArgumentException(SCALE + " must be in (0, 1], not " + value);
        }
        return scale;
    }

    /** {@code full} tries scaled, at least 10 (the smallest properties set 60). */
    static int tries(int full) {
        return Math.min(full, Math.max(10, (int) Math.ceil(full * scale())));
    }

    @Override
    public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
        context.attributes().tries().ifPresent(full -> context.attributes().setTries(tries(full)));
        return property.execute();
    }
}
