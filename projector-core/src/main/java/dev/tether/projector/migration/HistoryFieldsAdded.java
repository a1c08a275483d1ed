package dev.tether.projector.migration;

import dev.tether.avro.Checkpoint;

/**
 * Version 1 → 2: version 2 added what a checkpoint keeps of the session's history: its constraints, the recent
 * decisions and artifact handles, call counts, the facts block captured at each compaction, and per call whether a
 * human decision is pending. A version 1 checkpoint holds none of it, and the Avro defaults it reads with (empty,
 * zero, false) would be wrong, not just missing: a call awaiting approval would read as not awaiting it. Only the log
 * has them, so no version 1 checkpoint is migrated; each is rebuilt.
 */
final class HistoryFieldsAdded implements CheckpointMigration {

    @Override
    public int from() {
        return 1;
    }

    @Override
    public String change() {
        return "constraints, decisions, artifacts, call counts, compaction facts and awaitingApproval added";
    }

    @Override
    public Outcome migrate(Checkpoint checkpoint) {
        return new NotMigratable("version 1 kept none of them and only the log has them");
    }
}
