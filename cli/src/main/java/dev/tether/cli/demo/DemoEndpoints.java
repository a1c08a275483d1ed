package dev.tether.cli.demo;

import dev.tether.cli.TetherCli;
import dev.tether.client.TetherOptions;
import java.net.URI;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * Where the demo finds the services: its own options, or else as every command finds them (the global options, given
 * before the command, then the environment, then the local stack's).
 */
public final class DemoEndpoints {

    static final String AGENT = "dev-acme-agent";
    static final String APPROVER = "dev-acme-approver";

    @Option(names = "--session-url", paramLabel = "<url>",
            description = "The session-service (env TETHER_SESSION_URL; default http://127.0.0.1:8080).")
    URI sessions;

    @Option(names = "--projector-url", paramLabel = "<url>",
            description = "The projector-service (env TETHER_PROJECTOR_URL; default http://127.0.0.1:8081).")
    URI projector;

    @Option(names = "--approvals-url", paramLabel = "<url>",
            description = "The approval-service (env TETHER_APPROVALS_URL; default http://127.0.0.1:8082).")
    URI approvals;

    /** Fills in the URLs not given to {@code command} as {@code tether} would for any command. */
    void resolve(CommandSpec command) {
        TetherOptions services = ((TetherCli) command.root().userObject()).services();
        sessions = sessions != null ? sessions : services.sessionsUri();
        projector = projector != null ? projector : services.projectorUri();
        approvals = approvals != null ? approvals : services.approvalsUri();
    }

    TetherOptions options(String token) {
        return TetherOptions.of(sessions, projector, approvals).withToken(token);
    }

    /** The same endpoints as command-line options, for a worker process. */
    String[] arguments() {
        return new String[] {"--session-url", sessions.toString(), "--projector-url", projector.toString(),
                "--approvals-url", approvals.toString()};
    }
}
