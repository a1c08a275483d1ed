package dev.tether.kit.service;

import dev.tether.kit.kafka.RegistrySettings;
import dev.tether.kit.kafka.TopicLayout;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code tether.*} settings every service shares. The broker is Quarkus's own
 * {@code kafka.bootstrap.servers}.
 */
@ConfigMapping(prefix = "tether")
public interface TetherConfig {

    Registry registry();

    Topics topics();

    Auth auth();

    Policy policy();

    Stores stores();

    interface Registry {
        /** The registry's Apicurio v3 API, e.g. {@code http://127.0.0.1:8085/apis/registry/v3}. */
        String url();

        /**
         * How long start-up waits for each answer of the broker about the topics (the name is historical: the
         * registry's own deadlines are the two below; start-up waits for the registry as long as it takes).
         */
        @WithDefault("PT30S")
        Duration timeout();

        /** How long connecting to the registry may take; then the call fails (and is tried again later). */
        @WithDefault("PT2S")
        Duration connectTimeout();

        /**
         * How long a request to the registry may wait for its answer; then it fails. A schema lookup tries twice, so
         * a registry that answers nothing fails it within about twice the sum of both timeouts.
         */
        @WithDefault("PT5S")
        Duration requestTimeout();

        /**
         * How long a registry that answered before may fail every call before readiness says DOWN: one slow answer on
         * a loaded machine is not an outage. A registry that never answered this process is DOWN at once.
         */
        @WithDefault("PT15S")
        Duration unreadyAfter();

        /** These settings as the kit's {@link RegistrySettings}. */
        default RegistrySettings settings() {
            return new RegistrySettings(url(), connectTimeout(), requestTimeout());
        }
    }

    interface Topics {
        /** Prepended to every topic name (several installations on one cluster); empty by default. */
        Optional<String> prefix();

        /** Partitions of new topics: bounds the parallelism of every service. */
        @WithDefault("6")
        int partitions();

        /** Replicas of new topics: 1 for a single local broker, 3 in production. */
        @WithDefault("1")
        short replicationFactor();

        /** What to do at start-up: create missing topics and verify all (create), only verify (verify), or nothing (none). */
        @WithDefault("create")
        InitMode init();
    }

    enum InitMode { CREATE, VERIFY, NONE }

    /** The service's state stores (docs/ARCHITECTURE.md §5, "Store formats"). */
    interface Stores {
        /**
         * Store name → the version of its format to write, for the first roll of a rolling upgrade that brings a new
         * version (so that the instances still on the previous release can read what the upgraded ones write);
         * {@code tether.stores.write-version.session-heads=1}. Empty by default: every store writes its current version.
         * A store the service does not have, or a version its format cannot write, stops the start naming both.
         */
        Map<String, Integer> writeVersion();
    }

    /** Which tool calls need a human's approval: see {@link dev.tether.core.policy.GatingPolicy}. */
    interface Policy {
        @WithDefault("write_file,edit_file,run_command,http_fetch")
        String gated();

        /** {@code "<tenant>.<READ_ONLY|WRITE>"} → comma-separated gated tools for that tenant and mode. */
        Map<String, String> overrides();

        /**
         * Which harness-run tools need an approval (docs/ARCHITECTURE.md §6): {@code mutating} (those declared mutating),
         * {@code all} or {@code none}.
         */
        @WithDefault("mutating")
        String harnessGated();

        /** {@code "<tenant>.<READ_ONLY|WRITE>"} → {@code mutating}, {@code all} or {@code none}, for that tenant and mode. */
        Map<String, String> harnessOverrides();
    }

    /**
     * The gating policy, checked when asked for: a malformed entry, or a tool name not in {@code knownTools} (the
     * service's tool registry, every mode), throws naming the entry.
     */
    default dev.tether.core.policy.GatingPolicy gatingPolicy(java.util.Set<String> knownTools) {
        return dev.tether.core.policy.GatingPolicy.of(policy().gated(), policy().overrides(), knownTools, policy().harnessGated(),
                policy().harnessOverrides());
    }

    interface Auth {
        DevKeys devKeys();

        /**
         * Fixed bearer tokens for local runs and tests, instead of JWTs. Off unless enabled:
         * production takes JWTs only.
         */
        interface DevKeys {
            @WithDefault("false")
            boolean enabled();

            /** Token → {@code tenant:principal:role[,role...]}, e.g. {@code dev-acme-agent=acme:acme-agent:agent}. */
            Map<String, String> keys();
        }
    }

    default TopicLayout layout() {
        return new TopicLayout(topics().prefix().orElse(""), topics().partitions(), topics().replicationFactor());
    }
}
