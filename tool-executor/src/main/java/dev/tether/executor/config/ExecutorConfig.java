package dev.tether.executor.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The executor's own settings ({@code tether.executor.*}). */
@ConfigMapping(prefix = "tether.executor")
public interface ExecutorConfig {

    /** Names this instance in the ledger ({@code executorId}) and in its consumer group membership. */
    String instanceId();

    /** The directory holding one workspace per session, {@code <dir>/<sessionId>}; the approval-service reads the same. */
    String workspaces();

    /** How many calls run at once, each of a different session (a session's calls run one after another). */
    @WithDefault("4")
    int concurrency();

    Blobs blobs();

    Commands commands();

    Http http();

    Interruptions interruptions();

    LedgerSettings ledger();

    /** {@code secret://name} references resolve to these values, and only in the executor ({@code secrets."name"=value}). */
    Map<String, String> secrets();

    Test test();

    interface Blobs {
        /** The local blob store's directory: the session-service's, so it serves what the executor offloads. */
        String dir();

        /** Tool output over this many UTF-8 bytes is offloaded, leaving a preview in the event. */
        @WithDefault("65536")
        int thresholdBytes();
    }

    /** How {@code run_command} runs commands; see the tools module's {@code RunnerConfig}. */
    interface Commands {
        @WithDefault("PT60S")
        Duration timeout();

        @WithDefault("1048576")
        int outputCapBytes();

        @WithDefault("1073741824")
        long memoryLimitBytes();

        @WithDefault("512")
        int maxProcesses();

        /** Whether commands may use the network; off by default (an empty network namespace). */
        @WithDefault("false")
        boolean network();

        /**
         * Where the OS does not let the executor create namespaces: run commands anyway, without network or PID
         * isolation (true), or refuse every command (false, the default: fail closed).
         */
        @WithDefault("false")
        boolean allowUnisolated();

        /**
         * Directories a command may neither read nor change, besides the blob store's and the executor's application
         * directory, which are always hidden: where the command user is the executor's own (the executor not root: every
         * shipped image), whatever else the executor owns that commands must not reach (a mounted secret, a state
         * directory). Absolute paths; one holding the workspaces is left alone.
         */
        Optional<List<String>> hiddenPaths();
    }

    /** How the executor makes sure a call of an interrupted turn never starts (docs/ARCHITECTURE.md §6). */
    interface Interruptions {
        /**
         * How long a call about to start waits for the executor to have read every event of its session committed
         * before then (so that an interruption already in the log is seen); past it the call is not started and its
         * request comes again (fail closed).
         */
        @WithDefault("PT10S")
        Duration catchUpTimeout();

        /**
         * How far back in {@code session-events} the executor starts reading at start-up. A call authorized earlier
         * than that has the log of its session's partition read back to its authorization before it starts, so this
         * only sets how much is read up front.
         */
        @WithDefault("PT15M")
        Duration lookBack();
    }

    /** The ledger's bounded cache in front of {@code tool-outcomes} (docs/ARCHITECTURE.md §6). */
    interface LedgerSettings {
        /**
         * The most calls the cache holds per owned partition of {@code tool-outcomes}: an offset and a state each, about
         * 200 bytes, never the output. Calls older than the requests being handled leave it sooner (see
         * {@link #clockSkew()}); a call not in it is read from the topic.
         */
        @WithDefault("20000")
        int cacheCalls();

        /**
         * How much earlier than its call's authorization a ledger record may be stamped: the most the clock of the host
         * that wrote it (an executor before this version stamped its records with its own clock) may lag behind the
         * session-service's, which stamps authorizations. A lookup reads from the authorization's time less this.
         */
        @WithDefault("PT1M")
        Duration clockSkew();

        /** How long a read of the ledger may make no progress (the broker away) before its calls fail and come again. */
        @WithDefault("PT30S")
        Duration readTimeout();
    }

    interface Http {
        /** The hosts {@code http_fetch} may reach; none by default. */
        Optional<List<String>> allowedHosts();

        /**
         * Whether an allowed host name may resolve to an address that is not public (loopback, private, link-local);
         * false by default (see {@link dev.tether.tools.HttpFetchPolicy#privateAddresses()}).
         */
        @WithDefault("false")
        boolean allowPrivateAddresses();
    }

    /** For crash tests only: never set in production. */
    interface Test {
        /**
         * Halts the JVM (as a SIGKILL would) the first time it reaches this point of a call: {@code before-started} (past
         * every check, its STARTED not written), {@code after-started}, {@code after-effect} or {@code after-outcome};
         * once, remembered by {@link #crashMarker()}.
         */
        Optional<String> crashAt();

        /**
         * Freezes the JVM (SIGSTOP of itself, as a GC pause or a stopped VM would) the first time it reaches this point of
         * a call, until it is sent SIGCONT: one of {@link #crashAt()}'s; once, remembered by {@link #crashMarker()}.
         */
        Optional<String> freezeAt();

        /** The file whose existence says the crash or the freeze happened already. */
        Optional<String> crashMarker();
    }
}
