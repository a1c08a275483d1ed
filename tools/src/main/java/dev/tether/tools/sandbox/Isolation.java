package dev.tether.tools.sandbox;

import java.util.Objects;

/**
 * How commands are isolated on this host, found once by {@link #detect}, which tries to create the namespaces.
 *
 * <p>Immutable values.
 */
public sealed interface Isolation permits Isolation.Namespaces, Isolation.Unavailable {

    /** Whom commands run as, seen from the host: the owner workspaces must have. */
    SandboxUser commandUser();

    /**
     * Detects what this host allows, by running the command line commands will use (see {@link CommandRunner}) with
     * the command {@code exit 0}. Takes a few milliseconds; the probe is given 10 s.
     *
     * @param config the runner's configuration: its network setting and sandbox user shape the probe
     */
    static Isolation detect(RunnerConfig config) {
        return IsolationProbe.detect(config);
    }

    /**
     * Commands run in new user, PID, mount and (without {@link RunnerConfig#networkAccess()}) network namespaces,
     * as root inside their user namespace, which is {@link #commandUser()} outside it.
     *
     * @param commandUser  whom commands run as, seen from the host: the sandbox user if the executor runs as root,
     *                     else the executor's own user; never null
     * @param switchesUser whether the executor switches to {@code commandUser} ({@code setpriv}) first: it does when
     *                     it runs as root
     */
    record Namespaces(SandboxUser commandUser, boolean switchesUser) implements Isolation {
        public Namespaces {
            Objects.requireNonNull(commandUser, "commandUser");
        }
    }

    /**
     * Namespaces cannot be created here (no user namespaces, a seccomp filter, a missing tool). Commands are refused
     * unless {@link RunnerConfig#allowNetworkWhenIsolationUnavailable()}; then they run unisolated, as the executor's
     * own user.
     *
     * @param reason      what the probe reported, never null
     * @param commandUser the executor's own user, never null
     */
    record Unavailable(String reason, SandboxUser commandUser) implements Isolation {
        public Unavailable {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(commandUser, "commandUser");
        }

        /** Unavailable for {@code reason}, commands running as this JVM's user. */
        public static Unavailable because(String reason) {
            return new Unavailable(reason, SandboxUser.current());
        }
    }
}
