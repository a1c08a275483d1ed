package dev.tether.kit.service.auth;

import dev.tether.core.auth.Role;
import dev.tether.core.auth.TetherPrincipal;
import dev.tether.kit.service.TetherConfig;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** The configured dev keys ({@code tether.auth.dev-keys.*}), parsed and checked at start-up. */
@ApplicationScoped
public class DevKeys {

    private final boolean enabled;
    private final Map<String, TetherPrincipal> byToken;

    DevKeys(TetherConfig config) {
        this.enabled = config.auth().devKeys().enabled();
        this.byToken = enabled ? parse(config.auth().devKeys().keys()) : Map.of();
    }

    public boolean enabled() {
        return enabled;
    }

    /** The principal a token stands for, if it is a dev key and dev keys are enabled. */
    public Optional<TetherPrincipal> principal(String token) {
        return Optional.ofNullable(byToken.get(token));
    }

    /** A refusal names the entry by its spec: the key is the entry's name, and a credential, so it is never echoed. */
    static Map<String, TetherPrincipal> parse(Map<String, String> specs) {
        var parsed = new HashMap<String, TetherPrincipal>();
        specs.forEach((token, spec) -> {
            String[] parts = spec.split(":", -1);
            if (parts.length != 3 || parts[0].isBlank() || parts[1].isBlank()) {
                throw new IllegalArgumentException("the tether.auth.dev-keys.keys entry '" + spec
                        + "' must be tenant:principal:role[,role...], e.g. acme:acme-agent:agent");
            }
            var roles = EnumSet.noneOf(Role.class);
            for (String name : parts[2].split(",")) {
                roles.add(Role.fromWireName(name.trim()).orElseThrow(() -> new IllegalArgumentException(
                        "the tether.auth.dev-keys.keys entry '" + spec + "': unknown role '" + name.trim() + "'")));
            }
            parsed.put(token, new TetherPrincipal(parts[1], parts[0], roles));
        });
        return Map.copyOf(parsed);
    }
}
