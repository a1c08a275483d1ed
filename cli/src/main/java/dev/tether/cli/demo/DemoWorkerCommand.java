package dev.tether.cli.demo;

import dev.tether.client.ClaimRequest;
import dev.tether.client.Claimed;
import dev.tether.client.ReadAt;
import dev.tether.client.TetherClient;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tether demo-worker}: one worker process of the demo (hidden: the demo starts it). It claims the session; if
 * it takes the session over from a worker that died, it prints the recovery report first; then it plays the
 * {@link DemoAgent}'s script.
 */
@Command(name = "demo-worker", hidden = true, description = "A worker process of the demo.")
public final class DemoWorkerCommand implements Callable<Integer> {

    @Mixin
    DemoEndpoints endpoints;

    @Option(names = "--session", required = true, description = "The session to work on.")
    String sessionId;

    @Option(names = "--worker", required = true, description = "This worker's id.")
    String workerId;

    @Option(names = "--harness-version", required = true, description = "The harness version this worker runs.")
    String harnessVersion;

    @Spec
    CommandSpec spec;

    @Option(names = "--hang-midway", description = "Stop after asking for the second edit, as a worker about to crash.")
    boolean hangMidway;

    @Override
    public Integer call() throws Exception {
        endpoints.resolve(spec);
        try (TetherClient tether = TetherClient.create(endpoints.options(DemoEndpoints.AGENT))) {
            Claimed claim = tether.claim(sessionId, ClaimRequest.of(workerId, harnessVersion)).claimedOrThrow();
            System.out.printf("claimed %s at epoch %d (%s)%n", sessionId, claim.epoch(),
                    claim.resumeReason().map(r -> "took it over: " + r).orElse("first claim"));
            if (claim.resumeReason().isPresent()) {
                tether.recovery(sessionId, ReadAt.atLeast(claim.lastSeq()))
                        .ifPresent(report -> Reports.printRecovery(report, System.out));
            }
            new DemoAgent(tether, claim, System.out).run(hangMidway);
        }
        return 0;
    }
}
