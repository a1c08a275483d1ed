package dev.tether.projector.migration;

import dev.tether.avro.Checkpoint;

/**
 * Version 3 → 4: version 4 holds harness-run tools (docs/ARCHITECTURE.md §6, "Harness-run tools"): the session's
 * declaration, who runs each call, its attempts and start epoch, and the state STARTED. A version 3 projector read
 * {@code session_started} without its {@code harnessTools} (Avro skips a field its schema does not have) and skipped
 * {@code tool_call_started}, so a version 3 checkpoint cannot tell whether the session declared any: reading it as
 * "none" would be a guess, and a wrong one would show harness-run calls as the executor's and emit tool requests for
 * them. Only the log knows, so no version 3 checkpoint is migrated; each is rebuilt.
 */
final class HarnessToolsDeclared implements CheckpointMigration {

    @Override
    public int from() {
        return 3;
    }

    @Override
    public String change() {
        return "harness-run tools: the declaration, each call's runner, attempts and start epoch, the state STARTED";
    }

    @Override
    public Outcome migrate(Checkpoint checkpoint) {
        return new NotMigratable("a version 3 projector could not read the session's harnessTools; only the log has them");
    }
}
