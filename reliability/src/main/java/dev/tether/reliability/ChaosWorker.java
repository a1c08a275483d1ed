package dev.tether.reliability;

import dev.tether.client.RetryPolicy;
import dev.tether.client.TetherClient;
import dev.tether.client.TetherOptions;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Map;

/**
 * A worker process of the chaos run: claims its sessions as worker {@code --worker} and plays each one's
 * {@link ScriptedSession} on its own thread. The {@link WorkerPool} starts it; the {@link FaultInjector} may SIGKILL
 * it (a new worker process then takes the sessions over) or SIGSTOP it (it finds itself fenced when it wakes).
 *
 * <p>Usage: {@code ChaosWorker --sessions URL --projector URL --approvals URL --worker ID --rounds N --start MILLIS
 * --pace MILLIS --give-up MILLIS SESSION_ID:NUMBER...}. Prints one line per session, {@code <id> CLOSED|FENCED|GAVE_UP
 * <last error>}; exits 0 unless a session was given up.
 */
public final class ChaosWorker {

    private ChaosWorker() {}

    public static void main(String[] args) throws Exception {
        var options = new java.util.HashMap<String, String>();
        var sessions = new ArrayList<String>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].startsWith("--")) {
                options.put(args[i].substring(2), args[++i]);
            } else {
                sessions.add(args[i]);
            }
        }
        String workerId = options.get("worker");
        int rounds = Integer.parseInt(options.get("rounds"));
        long start = Long.parseLong(options.get("start"));
        long pace = Long.parseLong(options.get("pace"));
        long giveUp = Long.parseLong(options.get("give-up"));
        var tetherOptions = TetherOptions.of(URI.create(options.get("sessions")), URI.create(options.get("projector")),
                        URI.create(options.get("approvals")))
                .withToken("dev-acme-agent").withTimeout(Duration.ofSeconds(20))
                .withRetry(RetryPolicy.of(10, Duration.ofMillis(250), Duration.ofSeconds(2)));
        Map<String, ScriptedSession.Outcome> outcomes = new ConcurrentHashMap<>();
        try (TetherClient tether = TetherClient.create(tetherOptions)) {
            List<Thread> threads = new ArrayList<>();
            for (String spec : sessions) {
                String id = spec.substring(0, spec.lastIndexOf(':'));
                int number = Integer.parseInt(spec.substring(spec.lastIndexOf(':') + 1));
                var script = new ScriptedSession(tether, id, number, rounds, start, pace, giveUp);
                Thread t = new Thread(() -> {
                    ScriptedSession.Outcome outcome;
                    try {
                        outcome = script.run(workerId);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        outcome = ScriptedSession.Outcome.GAVE_UP;
                    } catch (RuntimeException e) {
                        outcome = ScriptedSession.Outcome.GAVE_UP;
                        e.printStackTrace();
                    }
                    outcomes.put(id, outcome);
                    System.out.printf("%s %s %s%n", id, outcome, outcome == ScriptedSession.Outcome.CLOSED ? "" : script.lastError());
                    System.out.flush();
                }, id);
                t.start();
                threads.add(t);
            }
            for (Thread t : threads) {
                t.join();
            }
        }
        boolean gaveUp = outcomes.containsValue(ScriptedSession.Outcome.GAVE_UP) || outcomes.size() < sessions.size();
        System.exit(gaveUp ? 1 : 0);
    }
}
