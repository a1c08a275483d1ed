package dev.tether.tools.sandbox;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What a test that needs namespaces does where there are none: it is skipped, unless the environment variable
 * {@value #REQUIRE_VARIABLE} is {@code 1} (CI sets it on hosts known to allow them), when it fails, so a host that
 * lost namespaces cannot turn the sandbox tests into silent skips.
 */
public final class NamespacesRequired {

    public static final String REQUIRE_VARIABLE = "TETHER_REQUIRE_NAMESPACES";

    private NamespacesRequired() {}

    /** Returns normally if {@code isolation} is {@link Isolation.Namespaces}; else skips or fails the test. */
    public static void assumeNamespaces(Isolation isolation) {
        if (isolation instanceof Isolation.Namespaces) {
            return;
        }
        if ("1".equals(System.getenv(REQUIRE_VARIABLE))) {
            fail(REQUIRE_VARIABLE + "=1 but there are no namespaces here: " + isolation);
        }
        assumeTrue(false, () -> "no namespaces here: " + isolation);
    }
}
