package dev.tether.executor.domain;

import dev.tether.tools.LedgerEntry;
import dev.tether.tools.Tool;
import java.util.Objects;

/**
 * What the executor does next with a call, as {@link CallRules} decide it. The executor carries a step out; a
 * {@link Reconcile} and a {@link Run} need the world's answer (the tool's reconciliation, whether the turn was
 * interrupted, the tool's intent), which {@link CallRules} turn into the next step or outcome. Immutable values.
 */
public sealed interface Step permits Step.ReportAgain, Step.Conclude, Step.CallsTool, Step.NotOurs {

    /**
     * A step that calls on the tool, so it needs the call's arguments as JSON; when they are not,
     * {@link CallRules#argumentsNotJson}.
     */
    sealed interface CallsTool extends Step permits Reconcile, Run {

        /** The tool to reconcile or run with. */
        Tool tool();

        /** The attempt this handling of the call is, from 1. */
        int attempt();
    }

    /**
     * A call the session's harness runs (docs/ARCHITECTURE.md §6, "Harness-run tools"): the executor does nothing with
     * it — it runs nothing, records nothing and answers nothing, not even a refusal (the harness writes the call's
     * result; the sequencer would refuse one from here anyway). The request is only logged and its offset committed.
     */
    record NotOurs(String why) implements Step {
        public NotOurs {
            Objects.requireNonNull(why, "why");
        }
    }

    /**
     * The call ended before: report its entry again (the same {@code tool_result}, the same eventId, which the
     * sequencer takes as the duplicate it is). Nothing is written and nothing runs.
     */
    record ReportAgain(CallEntry entry) implements Step {
        public ReportAgain {
            Objects.requireNonNull(entry, "entry");
        }
    }

    /** The call ends here without its tool running: record {@code outcome}, then report it. */
    record Conclude(CallOutcome.Ended outcome) implements Step {
        public Conclude {
            Objects.requireNonNull(outcome, "outcome");
        }
    }

    /**
     * The call was STARTED and never ended: ask {@code tool} what became of it ({@link Tool#reconcile} with
     * {@link #entryFor}), then {@link CallRules#reconciled}.
     *
     * @param tool    the tool of that name, even if the session's mode no longer has it
     * @param started the STARTED entry
     * @param verdict the authority's verdict now: a refusal forbids running it again, not finding out what happened
     */
    record Reconcile(Tool tool, CallEntry started, Authority.Verdict verdict) implements CallsTool {
        public Reconcile {
            Objects.requireNonNull(tool, "tool");
            Objects.requireNonNull(started, "started");
            Objects.requireNonNull(verdict, "verdict");
            if (started.state() != CallState.STARTED) {
                throw new IllegalArgumentException("only a STARTED call is reconciled, not " + started.state());
            }
        }

        @Override
        public int attempt() {
            return started.attempt() + 1;
        }

        /**
         * What the tool is shown of the STARTED entry, with the request's {@code argumentsJson}: under the key its start
         * handed the tool ({@link CallEntry#handedKey()}), which is the one to look the effect up by.
         */
        public LedgerEntry entryFor(String argumentsJson) {
            return new LedgerEntry(started.handedKey(), started.tool(), argumentsJson, started.beforeHash(),
                    started.afterHash(), started.attempt());
        }
    }

    /**
     * Run the call with {@code tool}: unless the turn was interrupted ({@link CallRules#beforeStart}) or the tool finds
     * the arguments invalid ({@link CallRules#intentFailed}), record {@link CallRules#started}, execute, record
     * {@link CallRules#ran}, report.
     */
    record Run(Tool tool, int attempt) implements CallsTool {
        public Run {
            Objects.requireNonNull(tool, "tool");
            if (attempt < 1) {
                throw new IllegalArgumentException("attempt starts at 1, got " + attempt);
            }
        }
    }
}
