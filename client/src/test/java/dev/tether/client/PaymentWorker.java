package dev.tether.client;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;

/**
 * A harness process for {@link HarnessRunIT}: claims a session, reconciles what a dead predecessor left
 * ({@link HarnessToolRunner#resume}), then (re-)sends its one turn — an {@code assistant_message} asking for
 * {@code record_payment} — and runs the call with {@link HarnessToolRunner}. The tool's external system is a directory
 * (see {@link Payments}). At a kill point it prints {@code PAUSED <point>} and blocks, so the test SIGKILLs it at exactly
 * that place; without one it prints {@code RESULT ...} and exits 0.
 *
 * <p>Arguments: sessions-url projector-url approvals-url token session-id worker-id payments-dir kill-point
 * ({@code NONE}, {@code AFTER_AUTHORIZED}, {@code BEFORE_EFFECT}, {@code AFTER_EFFECT}).
 */
public final class PaymentWorker {

    static final String TOOL = "record_payment";
    static final String CALL = "pay-1";

    private PaymentWorker() {}

    public static void main(String[] args) throws Exception {
        var options = TetherOptions.of(URI.create(args[0]), URI.create(args[1]), URI.create(args[2])).withToken(args[3])
                .withTimeout(Duration.ofSeconds(30)).withRetry(RetryPolicy.of(12, Duration.ofMillis(250), Duration.ofSeconds(5)));
        String sessionId = args[4];
        var payments = new Payments(Path.of(args[6]));
        String killPoint = args[7];
        try (TetherClient tether = TetherClient.create(options)) {
            Claimed claimed = tether.claim(sessionId, ClaimRequest.of(args[5], "v1")).claimedOrThrow();
            System.out.println("CLAIMED epoch " + claimed.epoch());
            HarnessToolRunner runner = HarnessToolRunner.builder(tether, claimed)
                    .tool(declaration(), call -> {
                        pauseAt("BEFORE_EFFECT", killPoint);
                        payments.record(call.idempotencyKey(), call.argumentsJson());
                        pauseAt("AFTER_EFFECT", killPoint);
                        return ToolOutput.ok("payment recorded under " + call.idempotencyKey());
                    }, payments::reconcile)
                    .onAuthorized(call -> pauseAt("AFTER_AUTHORIZED", killPoint))
                    .build();
            if (claimed.resumed()) {
                for (HarnessRunResult resumed : runner.resume()) {
                    System.out.println("RESUMED " + describe(resumed));
                }
            }
            // the worker's one turn; a fresh worker sends it again: the same step, the same eventId, the original seq
            Appended turn = tether.writer(claimed).append("turn-1", NewEvent.assistantMessage(
                    "Recording the payment.", List.of(new ToolCall(CALL, TOOL, "{\"amount\":42}")), new TokenUsage(10, 5))).appendedOrThrow();
            HarnessRunResult result = runner.run(turn.seqs().get(0), CALL, Duration.ofMinutes(2));
            System.out.println("RESULT " + describe(result));
        }
    }

    static HarnessTool declaration() {
        return HarnessTool.mutating(TOOL).reconcilable();
    }

    static String describe(HarnessRunResult result) {
        return result instanceof ToolCompleted c ? "ToolCompleted " + c.status() + " " + c.how() + " " + c.idempotencyKey()
                : result.getClass().getSimpleName() + " " + result;
    }

    private static void pauseAt(String point, String killPoint) {
        if (point.equals(killPoint)) {
            System.out.println("PAUSED " + point);
            System.out.flush();
            try {
                Thread.sleep(Long.MAX_VALUE); // until the test SIGKILLs this process
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted at " + point, e);
            }
        }
    }

    /**
     * The counting external system: every request is a line of {@code requests.log}, and a payment is applied at most
     * once per idempotency key (a file {@code applied/<key>} created exclusively).
     */
    record Payments(Path dir) {

        void record(String key, String argumentsJson) throws IOException {
            Files.createDirectories(dir.resolve("applied"));
            Files.writeString(dir.resolve("requests.log"), key + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND,
                    StandardOpenOption.SYNC);
            try {
                Files.writeString(applied(key), argumentsJson, StandardOpenOption.CREATE_NEW, StandardOpenOption.SYNC);
            } catch (FileAlreadyExistsException duplicate) {
                // the same key again: applied once already
            }
        }

        Reconciliation reconcile(ToolInvocation attempt) {
            return Files.exists(applied(attempt.idempotencyKey()))
                    ? Reconciliation.tookEffect(ToolOutput.ok("payment recorded under " + attempt.idempotencyKey() + " (found by reconciliation)"))
                    : Reconciliation.noEffect("no payment under " + attempt.idempotencyKey());
        }

        Path applied(String key) {
            return dir.resolve("applied").resolve(URLEncoder.encode(key, StandardCharsets.UTF_8));
        }

        List<String> requests() throws IOException {
            Path log = dir.resolve("requests.log");
            return Files.exists(log) ? Files.readAllLines(log) : List.of();
        }

        long appliedCount() throws IOException {
            Path applied = dir.resolve("applied");
            if (!Files.exists(applied)) {
                return 0;
            }
            try (var files = Files.list(applied)) {
                return files.count();
            }
        }
    }
}
