package dev.tether.kit.service.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tether.core.auth.Role;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link DevKeys#parse}: each key's spec, checked at start-up; a refusal names the entry by its spec, never by the key. */
class DevKeysTest {

    private static final String KEY = "k3y-that-must-stay-secret";

    @Test
    void aWellFormedSpec_isItsTenantsPrincipal_withItsRoles() {
        var principal = DevKeys.parse(Map.of(KEY, "acme:acme-ops:operator, admin")).get(KEY);

        assertThat(principal.tenantId()).isEqualTo("acme");
        assertThat(principal.id()).isEqualTo("acme-ops");
        assertThat(principal.roles()).containsExactlyInAnyOrder(Role.OPERATOR, Role.ADMIN);
    }

    @Test
    void aMalformedSpec_orAnUnknownRole_stopsTheStart_withoutEchoingTheKey() {
        for (String spec : new String[] {"acme:acme-agent", ":acme-agent:agent", "acme:acme-agent:superuser"}) {
            IllegalArgumentException refused = catchThrowableOfType(IllegalArgumentException.class,
                    () -> DevKeys.parse(Map.of(KEY, spec)));

            assertThat(refused).as(spec).isNotNull();
            assertThat(refused.getMessage()).as(spec).doesNotContain(KEY).contains(spec);
        }
    }
}
