package dev.tether.cli.demo;

import dev.tether.client.TetherOptions;
import java.net.URI;
import picocli.CommandLine.Option;

/** Where the demo finds the services; the defaults are the local stack's. */
public final class DemoEndpoints {

    static final String AGENT = "dev-acme-agent";
    static final String APPROVER = "dev-acme-approver";

    @Option(names = "--session-url", defaultValue = "${env:TETHER_SESSION_URL:-http://127.0.0.1:8080}", description = "The session-service.")
    URI sessions;

    @Option(names = "--projector-url", defaultValue = "${env:TETHER_PROJECTOR_URL:-http://127.0.0.1:8081}", description = "The projector-service.")
    URI projector;

    @Option(names = "--approvals-url", defaultValue = "${env:TETHER_APPROVALS_URL:-http://127.0.0.1:8082}", description = "The approval-service.")
    URI approvals;

    TetherOptions options(String token) {
        return TetherOptions.of(sessions, projector, approvals).withToken(token);
    }

    /** The same endpoints as command-line options, for a worker process. */
    String[] arguments() {
        return new String[] {"--session-url", sessions.toString(), "--projector-url", projector.toString(),
                "--approvals-url", approvals.toString()};
    }
}
