package dev.tether.cli.commands;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tether.cli.CliException;
import dev.tether.cli.Converters;
import dev.tether.cli.Role;
import dev.tether.cli.TetherCli;
import dev.tether.cli.output.Fields;
import dev.tether.cli.output.Output;
import dev.tether.cli.output.Table;
import dev.tether.client.Checkpoint;
import dev.tether.client.EraseResult;
import dev.tether.client.Erased;
import dev.tether.client.EventPage;
import dev.tether.client.ForkResult;
import dev.tether.client.Forked;
import dev.tether.client.NotFound;
import dev.tether.client.Rejected;
import dev.tether.client.SessionEvent;
import dev.tether.client.SessionEventListener;
import dev.tether.client.SessionInfo;
import dev.tether.client.Subscription;
import dev.tether.client.SubscriptionEnd;
import dev.tether.client.TetherClient;
import dev.tether.client.TetherException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code tether sessions}: the session-service's sessions, as an agent of the token's tenant. */
@Command(name = "sessions", mixinStandardHelpOptions = true,
        description = "List, show, follow, fork and erase the sessions of the token's tenant.")
public final class SessionsCommand {

    /** Events per page when printing a log without following it. */
    private static final int PAGE = 500;

    @ParentCommand
    TetherCli cli;

    @Command(name = "list", mixinStandardHelpOptions = true, description = "The tenant's sessions, open and closed.")
    int list(@Option(names = "--status", paramLabel = "open|closed", description = "only sessions with this status")
             SessionInfo.Status status) {
        Output out = cli.output();
        List<SessionInfo> sessions;
        try (TetherClient tether = cli.client(Role.AGENT)) {
            sessions = status == null ? tether.sessions() : tether.sessions(status);
        }
        if (out.json()) {
            out.print(Views.sessions(sessions));
            return 0;
        }
        if (sessions.isEmpty()) {
            out.note(status == null ? "no sessions" : "no " + status.name().toLowerCase(java.util.Locale.ROOT) + " sessions");
            return 0;
        }
        Table table = Table.of("SESSION", "STATUS", "LAST SEQ", "EPOCH", "WORKER", "VERSION", "MODEL", "OWNER", "PARENT");
        sessions.forEach(s -> table.row(s.sessionId(), s.status(), s.lastSeq(), s.epoch(), s.workerId().orElse(null), s.harnessVersion(),
                s.modelId(), s.owner(), s.parentSessionId().orElse(null)));
        out.print(table);
        return 0;
    }

    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "One session: what the session-service knows (status, seq, claim) and its checkpoint from the projector-service.")
    int show(@Parameters(paramLabel = "<sessionId>", converter = Converters.SessionId.class) String sessionId) {
        Output out = cli.output();
        SessionInfo session;
        Optional<Checkpoint> checkpoint;
        String checkpointProblem = null;
        try (TetherClient tether = cli.client(Role.AGENT)) {
            session = tether.session(sessionId).orElseThrow(() -> notFound(sessionId));
            try {
                checkpoint = tether.checkpoint(sessionId);
            } catch (TetherException e) {
                checkpoint = Optional.empty();
                checkpointProblem = e.getMessage();
            }
        }
        if (checkpointProblem != null) {
            out.note("tether: warning: no checkpoint: " + checkpointProblem);
        }
        if (out.json()) {
            ObjectNode n = Output.object();
            n.set("session", Views.session(session));
            n.set("checkpoint", checkpoint.map(c -> Output.parse(c.json())).orElse(null));
            out.print(n);
            return 0;
        }
        Fields fields = Fields.of()
                .add("session", session.sessionId() + session.parentSessionId().map(p -> " (subagent of " + p + ")").orElse(""))
                .add("status", session.status() + checkpoint.map(c -> " (" + c.status() + ")").orElse(""))
                .add("owner", session.owner() + " (tenant " + session.tenantId() + ")")
                .add("pinned to", session.harnessVersion() + ", " + session.modelId())
                .add("last seq", session.lastSeq())
                .add("claimed by", session.workerId().map(w -> w + " (epoch " + session.epoch() + ")").orElse("nobody yet"));
        if (checkpoint.isEmpty()) {
            fields.add("checkpoint", checkpointProblem == null ? "not projected yet" : "unavailable");
        } else {
            Checkpoint c = checkpoint.get();
            fields.add("objective", c.objective())
                    .add("checkpoint at", "seq " + c.lastSeq() + (c.lastSeq() < session.lastSeq() ? " (the projector is catching up)" : ""))
                    .add("step", c.step() + " (" + c.progress().stepsCompleted() + " completed, last verified " + c.progress().lastVerifiedStep()
                            + ")" + c.progress().lastNote().map(n -> ": " + n).orElse(""))
                    .add("tokens", c.usedTokens().inputTokens() + " in, " + c.usedTokens().outputTokens() + " out"
                            + (c.tokenBudget().isPresent() ? " (budget " + c.tokenBudget().getAsLong() + ")" : ""))
                    .add("waiting for", c.pendingAction().map(p -> p.kind() + p.callId().map(id -> " of " + id).orElse("")
                            + " since seq " + p.sinceSeq()).orElse("nothing"));
            var plan = new ArrayList<String>();
            for (int i = 0; i < c.plan().size(); i++) {
                plan.add((i + 1) + ". " + c.plan().get(i).text() + " (" + c.plan().get(i).status() + ")");
            }
            fields.addLines("plan", plan);
            fields.addLines("tool calls", c.toolCursor().stream().map(t -> t.callId() + "  " + t.tool() + "  " + t.state()
                    + (t.awaitingApproval() ? ", awaiting approval" : "") + "  (requested at seq " + t.requestSeq()
                    + (t.resultSeq().isPresent() ? ", result at seq " + t.resultSeq().getAsLong() : "") + ")").toList());
        }
        out.print(fields);
        return 0;
    }

    @Command(name = "tail", mixinStandardHelpOptions = true,
            description = {"Print the session's events from a seq on, then follow new ones as they are appended (Ctrl-C stops).",
                    "With --json, one event per line, as the API returns it."})
    int tail(@Parameters(paramLabel = "<sessionId>", converter = Converters.SessionId.class) String sessionId,
             @Option(names = "--from-seq", paramLabel = "<seq>", defaultValue = "1", converter = Converters.Seq.class, description = "the first seq to print (default: ${DEFAULT-VALUE})")
             long fromSeq,
             @Option(names = "--no-follow", description = "print the events there are now and stop") boolean noFollow)
            throws InterruptedException {
        Output out = cli.output();
        var header = new java.util.concurrent.atomic.AtomicBoolean(out.json());
        var ended = new CompletableFuture<SubscriptionEnd>();
        SessionEventListener print = event -> {
            if (!header.getAndSet(true)) {
                out.line(EventSummary.HEADER);
            }
            print(out, event);
            if (out.closed()) { // '| head' has read what it wanted: stop following, as a command killed by SIGPIPE would
                ended.complete(new SubscriptionEnd(SubscriptionEnd.Reason.CLOSED, Optional.empty(), event.seq()));
            }
        };
        try (TetherClient tether = cli.client(Role.AGENT)) {
            if (noFollow) {
                long from = fromSeq;
                while (true) {
                    EventPage page = tether.events(sessionId, from, PAGE).orElseThrow(() -> notFound(sessionId));
                    page.events().forEach(print::onEvent);
                    if (page.events().isEmpty() || page.atEnd() || out.closed()) {
                        return 0;
                    }
                    long last = page.events().get(page.events().size() - 1).seq();
                    if (page.nextSeq() <= last || page.nextSeq() <= from) { // the next page would print these events again, or for ever
                        throw new CliException("the session-service's page of " + sessionId + " from seq " + from + " ends at seq " + last
                                + " but says to go on from seq " + page.nextSeq() + "; stopped rather than print events again");
                    }
                    from = page.nextSeq();
                }
            }
            Subscription subscription = tether.subscribe(sessionId, fromSeq, new SessionEventListener() {
                @Override
                public void onEvent(SessionEvent event) {
                    print.onEvent(event);
                }

                // said once the stream is back, so the end of an erased session's stream (which never comes back) says nothing
                private final java.util.concurrent.atomic.AtomicReference<String> broke = new java.util.concurrent.atomic.AtomicReference<>();

                @Override
                public void onDisconnected(long lastSeq, Exception cause) {
                    broke.set("after seq " + lastSeq + " (" + cause.getMessage() + ")");
                }

                @Override
                public void onConnected(long from) {
                    String after = broke.getAndSet(null);
                    if (after != null) {
                        out.note("tether: the stream broke " + after + "; resumed from seq " + from);
                    }
                }

                @Override
                public void onEnd(SubscriptionEnd end) {
                    ended.complete(end);
                }
            });
            try {
                SubscriptionEnd end = ended.get();
                return switch (end.reason()) {
                    case CLOSED -> 0;
                    case NOT_FOUND -> throw end.lastSeq() >= fromSeq
                            ? new CliException("session " + sessionId + " was erased after seq " + end.lastSeq())
                            : notFound(sessionId);
                    case FAILED -> throw end.failure().orElseGet(() -> new CliException("following " + sessionId + " failed"));
                };
            } catch (ExecutionException e) {
                throw new CliException("following " + sessionId + " failed: " + e.getCause(), e.getCause());
            } finally {
                subscription.close();
            }
        }
    }

    private static void print(Output out, SessionEvent event) {
        if (out.json()) {
            out.jsonLine(event.json());
        } else {
            out.line(EventSummary.line(event));
        }
    }

    @Command(name = "fork", mixinStandardHelpOptions = true,
            description = "Start a new session from the session as it was at a seq (its first event is session_forked).")
    int fork(@Parameters(paramLabel = "<sessionId>", converter = Converters.SessionId.class) String sessionId,
             @Option(names = "--at-seq", required = true, paramLabel = "<seq>", converter = Converters.Seq.class, description = "the parent's last seq the fork keeps") long atSeq,
             @Option(names = "--new-id", paramLabel = "<sessionId>", converter = Converters.SessionId.class, description = "the new session's id (default: a random UUID)") String newId) {
        Output out = cli.output();
        ForkResult result;
        try (TetherClient tether = cli.client(Role.AGENT)) {
            result = newId == null ? tether.fork(sessionId, atSeq) : tether.fork(sessionId, atSeq, newId);
        }
        if (result instanceof NotFound) {
            throw notFound(sessionId);
        }
        if (result instanceof Rejected r) {
            throw Views.refused("forking " + sessionId, r);
        }
        Forked f = (Forked) result;
        if (out.json()) {
            ObjectNode n = Output.object().put("sessionId", f.sessionId()).put("parentSessionId", f.parentSessionId()).put("atSeq", f.atSeq())
                    .put("seq", f.seq()).put("harnessVersion", f.harnessVersion()).put("modelId", f.modelId());
            out.print(n);
        } else {
            out.line("forked " + f.parentSessionId() + " at seq " + f.atSeq() + " into " + f.sessionId() + " (pinned to " + f.harnessVersion()
                    + ", " + f.modelId() + ")");
        }
        return 0;
    }

    @Command(name = "erase", mixinStandardHelpOptions = true,
            description = {"Erase the session for good: a tombstone for each of its events and for its checkpoint.",
                    "The owner or an admin only. Not retried: if the answer is lost, run 'tether sessions show' to see whether it is gone."})
    int erase(@Parameters(paramLabel = "<sessionId>", converter = Converters.SessionId.class) String sessionId) {
        Output out = cli.output();
        EraseResult result;
        try (TetherClient tether = cli.client(Role.AGENT)) {
            result = tether.erase(sessionId);
        }
        if (result instanceof NotFound) {
            throw notFound(sessionId);
        }
        if (result instanceof Rejected r) {
            throw Views.refused("erasing " + sessionId, r);
        }
        Erased e = (Erased) result;
        if (out.json()) {
            out.print(Output.object().put("sessionId", e.sessionId()).put("events", e.events()));
        } else {
            out.line("erased " + e.sessionId() + ": " + Views.count(e.events(), "event") + " tombstoned");
        }
        return 0;
    }

    static CliException notFound(String sessionId) {
        return new CliException("session " + sessionId + " not found (it does not exist for this token's tenant, or was erased)");
    }
}
