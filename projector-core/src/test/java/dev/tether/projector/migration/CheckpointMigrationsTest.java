package dev.tether.projector.migration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.avro.Checkpoint;
import dev.tether.avro.ToolCallState;
import dev.tether.core.event.ToolStatus;
import dev.tether.projector.avro.CheckpointAvro;
import dev.tether.projector.domain.Projection;
import dev.tether.projector.domain.SessionProjection;
import dev.tether.projector.migration.UnmigratableCheckpointException.Reason;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CheckpointMigrationsTest {

    private final CheckpointMigrations chain = CheckpointMigrations.projector();

    @Test
    void theProjectorsChain_runsFromVersion1ToTheVersionItWrites() {
        assertThat(chain.current()).isEqualTo(SessionProjection.SCHEMA_VERSION).isEqualTo(4);
        assertThat(chain.oldest()).isEqualTo(1);
        assertThat(chain.steps()).extracting(CheckpointMigration::from).containsExactly(1, 2, 3);
    }

    @Test
    void aCurrentCheckpoint_loadsAsItIs() {
        Checkpoint stored = new CheckpointSessions("s1").call("c1", ToolStatus.OK).storedAs(4);

        CheckpointMigrations.Upgraded up = chain.upgrade(stored);

        assertThat(up.checkpoint()).isSameAs(stored);
        assertThat(up.migrated()).isFalse();
        assertThat(up.storedVersion()).isEqualTo(4);
    }

    @Test
    void aVersion2CheckpointThatNeverTrimmed_migratesTo3_equalToWhatVersion3Folds_thenStopsAtTheStepTo4() {
        var session = new CheckpointSessions("s1").call("c1", ToolStatus.OK).call("c2", ToolStatus.UNKNOWN).call("c3", ToolStatus.ERROR);
        Checkpoint stored = session.storedAs(2);

        CheckpointMigration.Outcome step = new UnknownCallsStayOpen().migrate(stored);

        assertThat(step).isEqualTo(new CheckpointMigration.Migrated(session.storedAs(3)));
        assertThat(stored.getSchemaVersion()).as("the stored checkpoint is not changed").isEqualTo(2);
        assertThatThrownBy(() -> chain.upgrade(stored))
                .isInstanceOfSatisfying(UnmigratableCheckpointException.class, e -> assertThat(e.reason()).isEqualTo(Reason.REFUSED_BY_A_STEP))
                .hasMessageStartingWith("the checkpoint of s1 has schemaVersion 2 and cannot be migrated to 4: step 3 → 4");
    }

    @Test
    void aVersion3Checkpoint_isNeverMigrated_onlyTheLogKnowsWhichToolsTheHarnessRuns() {
        Checkpoint stored = new CheckpointSessions("s1").call("c1", ToolStatus.OK).storedAs(3);

        assertThatThrownBy(() -> chain.upgrade(stored))
                .isInstanceOfSatisfying(UnmigratableCheckpointException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.REFUSED_BY_A_STEP);
                    assertThat(e.storedVersion()).isEqualTo(3);
                    assertThat(e.currentVersion()).isEqualTo(4);
                })
                .hasMessageStartingWith("the checkpoint of s1 has schemaVersion 3 and cannot be migrated to 4: step 3 → 4 (harness-run"
                        + " tools: the declaration, each call's runner, attempts and start epoch, the state STARTED): a version 3"
                        + " projector could not read the session's harnessTools; only the log has them. It is rebuilt from the"
                        + " session's events");
        assertThatThrownBy(() -> CheckpointAvro.load(stored)).isInstanceOf(UnmigratableCheckpointException.class);
    }

    @Test
    void aVersion2CheckpointThatTrimmedAnUnknownCall_isNotMigrated() {
        var session = new CheckpointSessions("s1").call("lost", ToolStatus.UNKNOWN);
        for (int i = 0; i < Projection.FINISHED_CALLS_KEPT; i++) {
            session.call("c" + i, ToolStatus.OK);
        }
        // version 3 keeps the UNKNOWN call; version 2 trimmed it with the ten later OK ones: the same checkpoint without it
        Checkpoint v3 = session.storedAs(3);
        assertThat(v3.getToolCursor()).extracting(c -> c.getCallId()).contains("lost");
        Checkpoint v2 = Checkpoint.newBuilder(v3).setSchemaVersion(2)
                .setToolCursor(v3.getToolCursor().stream().filter(c -> c.getState() != ToolCallState.UNKNOWN).toList()).build();

        assertThatThrownBy(() -> chain.upgrade(v2))
                .isInstanceOfSatisfying(UnmigratableCheckpointException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.REFUSED_BY_A_STEP);
                    assertThat(e.storedVersion()).isEqualTo(2);
                    assertThat(e.currentVersion()).isEqualTo(4);
                })
                .hasMessage("the checkpoint of s1 has schemaVersion 2 and cannot be migrated to 4: step 2 → 3 (calls with an UNKNOWN"
                        + " outcome stay in the tool cursor until resolved): 11 finished calls counted but 10 kept in the tool"
                        + " cursor: version 2 trimmed finished calls and may have trimmed one still awaiting a human decision. It is"
                        + " rebuilt from the session's events: the projector does so when it folds the session's next event, and"
                        + " reads fold the log meanwhile; nothing to do.");
    }

    @Test
    void aVersion2CheckpointThatTrimmedOnlyClosedCalls_isNotMigratedEither_forTheCheckpointCannotTellWhatItTrimmed() {
        var session = new CheckpointSessions("s1");
        for (int i = 0; i < Projection.FINISHED_CALLS_KEPT + 2; i++) {
            session.call("c" + i, ToolStatus.OK);
        }

        assertThatThrownBy(() -> chain.upgrade(session.storedAs(2)))
                .isInstanceOf(UnmigratableCheckpointException.class)
                .hasMessageContaining("12 finished calls counted but 10 kept");
    }

    @Test
    void aVersion1Checkpoint_isNeverMigrated_itsHistoryIsOnlyInTheLog() {
        Checkpoint stored = new CheckpointSessions("s1").call("c1", ToolStatus.OK).storedAs(1);

        assertThatThrownBy(() -> chain.upgrade(stored))
                .isInstanceOfSatisfying(UnmigratableCheckpointException.class, e -> assertThat(e.reason()).isEqualTo(Reason.REFUSED_BY_A_STEP))
                .hasMessageStartingWith("the checkpoint of s1 has schemaVersion 1 and cannot be migrated to 4: step 1 → 2 (constraints,"
                        + " decisions, artifacts, call counts, compaction facts and awaitingApproval added): version 1 kept none of"
                        + " them and only the log has them. It is rebuilt from the session's events");
    }

    @Test
    void aCheckpointFromANewerProjector_isNeverRead_andTheErrorSaysWhatToDo() {
        Checkpoint stored = new CheckpointSessions("s1").call("c1", ToolStatus.OK).storedAs(5);

        assertThatThrownBy(() -> chain.upgrade(stored))
                .isInstanceOfSatisfying(UnmigratableCheckpointException.class,
                        e -> assertThat(e.reason()).isEqualTo(Reason.NEWER_THAN_THIS_PROJECTOR))
                .hasMessage("the checkpoint of s1 has schemaVersion 5, newer than this projector's 4: a newer projector wrote it and"
                        + " this one does not read it. If this instance is a rollback, nothing to do: it rebuilds the checkpoint from"
                        + " the session's events when it folds the session's next event (reads fold the log meanwhile), and the newer"
                        + " projector migrates that one again. Otherwise finish the upgrade: run a projector release that knows"
                        + " schemaVersion 5.");
        assertThatThrownBy(() -> CheckpointAvro.load(stored)).isInstanceOf(UnmigratableCheckpointException.class);
    }

    @Test
    void aCheckpointOlderThanTheChain_isNotMigrated() {
        Checkpoint stored = new CheckpointSessions("s1").storedAs(0);

        assertThatThrownBy(() -> chain.upgrade(stored))
                .isInstanceOfSatisfying(UnmigratableCheckpointException.class, e -> assertThat(e.reason()).isEqualTo(Reason.OLDER_THAN_THE_CHAIN))
                .hasMessageStartingWith("the checkpoint of s1 has schemaVersion 0, older than any this projector (schemaVersion 4)"
                        + " migrates (the oldest is 1).");
    }

    /**
     * The projector's chain has one step that migrates (2 → 3). This chain adds a step that exists only in this test
     * (3 → 4, which records itself in the checkpoint's last note) to show that steps run in order, each on the output
     * of the one before, starting at the stored version.
     */
    @Test
    void stepsRunInOrder_fromTheStoredVersion_eachOnTheOutputOfTheOneBefore() {
        var seen = new ArrayList<Integer>();
        CheckpointMigration testOnly = new CheckpointMigration() {
            @Override
            public int from() {
                return 3;
            }

            @Override
            public String change() {
                return "test-only: the last note records the step";
            }

            @Override
            public Outcome migrate(Checkpoint c) {
                seen.add(c.getSchemaVersion());
                Checkpoint next = Checkpoint.newBuilder(c).setSchemaVersion(4).build();
                next.getProgress().setLastNote("migrated to 4");
                return new Migrated(next);
            }
        };
        var four = new CheckpointMigrations(4, List.of(new HistoryFieldsAdded(), new UnknownCallsStayOpen(), testOnly));
        var session = new CheckpointSessions("s1").call("c1", ToolStatus.OK);

        CheckpointMigrations.Upgraded fromTwo = four.upgrade(session.storedAs(2));
        CheckpointMigrations.Upgraded fromThree = four.upgrade(session.storedAs(3));

        assertThat(seen).as("3 → 4 saw the output of 2 → 3, then a stored version 3").containsExactly(3, 3);
        assertThat(fromTwo.applied()).extracting(s -> s.substring(0, 5)).containsExactly("2 → 3", "3 → 4");
        assertThat(fromThree.applied()).extracting(s -> s.substring(0, 5)).containsExactly("3 → 4");
        assertThat(fromTwo.checkpoint()).isEqualTo(fromThree.checkpoint());
        assertThat(fromTwo.checkpoint().getSchemaVersion()).isEqualTo(4);
        assertThat(fromTwo.checkpoint().getProgress().getLastNote()).isEqualTo("migrated to 4");
        assertThatThrownBy(() -> four.upgrade(session.storedAs(1))).hasMessageContaining("step 1 → 2");
    }

    @Test
    void aStepThatProducesTheWrongVersion_isABug_notAMigration() {
        CheckpointMigration wrong = step(2, c -> new CheckpointMigration.Migrated(c));
        var broken = new CheckpointMigrations(3, List.of(wrong));

        assertThatThrownBy(() -> broken.upgrade(new CheckpointSessions("s1").storedAs(2)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("step 2 → 3 produced schemaVersion 2");
    }

    @Test
    void aChainWithAGapARepeatOrTheWrongEnd_isRefused() {
        CheckpointMigration one = step(1, c -> new CheckpointMigration.NotMigratable("no"));
        CheckpointMigration two = step(2, c -> new CheckpointMigration.NotMigratable("no"));

        assertThatThrownBy(() -> new CheckpointMigrations(3, List.of(one, one)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("migration steps must run consecutively up to 3: step 2 of 2 migrates from 1, expected 2");
        assertThatThrownBy(() -> new CheckpointMigrations(4, List.of(one, two))).hasMessageContaining("expected 2");
        assertThatThrownBy(() -> new CheckpointMigrations(3, List.of(two, one))).hasMessageContaining("expected 1");
        assertThat(new CheckpointMigrations(3, List.of()).oldest()).isEqualTo(3);
    }

    private static CheckpointMigration step(int from, java.util.function.Function<Checkpoint, CheckpointMigration.Outcome> migrate) {
        return new CheckpointMigration() {
            @Override
            public int from() {
                return from;
            }

            @Override
            public String change() {
                return "a test step";
            }

            @Override
            public Outcome migrate(Checkpoint checkpoint) {
                return migrate.apply(checkpoint);
            }
        };
    }
}
