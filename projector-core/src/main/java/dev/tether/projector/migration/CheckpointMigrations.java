package dev.tether.projector.migration;

import dev.tether.avro.Checkpoint;
import dev.tether.projector.domain.SessionProjection;
import dev.tether.projector.migration.UnmigratableCheckpointException.Reason;
import java.util.ArrayList;
import java.util.List;

/**
 * The chain of checkpoint migrations: a stored checkpoint of an older {@code schemaVersion} goes through the steps
 * N → N+1, in order, up to the version this projector writes. The rules:
 * <ul>
 * <li>the current version loads as it is;</li>
 * <li>an older one goes through every step from its version on; the first step that refuses it
 *     ({@link CheckpointMigration.NotMigratable}) ends the chain;</li>
 * <li>one older than the chain's first step, and one newer than this projector, are never migrated: a newer
 *     version's content may mean things this build cannot know, so it is never guessed at.</li>
 * </ul>
 * Whatever is not migrated throws {@link UnmigratableCheckpointException}; the projector then rebuilds the checkpoint
 * from the log. Immutable and thread-safe.
 */
public final class CheckpointMigrations {

    private final int current;
    private final List<CheckpointMigration> steps;

    /**
     * @param current the version this projector writes
     * @param steps   one step from each version, consecutive, the last one from {@code current - 1}; may be empty
     * @throws IllegalArgumentException if the steps leave a gap, repeat a version or do not end at {@code current}
     */
    public CheckpointMigrations(int current, List<CheckpointMigration> steps) {
        for (int i = 0; i < steps.size(); i++) {
            int expected = current - steps.size() + i;
            if (steps.get(i).from() != expected) {
                throw new IllegalArgumentException("migration steps must run consecutively up to " + current + ": step " + (i + 1)
                        + " of " + steps.size() + " migrates from " + steps.get(i).from() + ", expected " + expected);
            }
        }
        this.current = current;
        this.steps = List.copyOf(steps);
    }

    /** The projector's chain: from every released checkpoint version to {@link SessionProjection#SCHEMA_VERSION}. */
    public static CheckpointMigrations projector() {
        return new CheckpointMigrations(SessionProjection.SCHEMA_VERSION, List.of(new HistoryFieldsAdded(), new UnknownCallsStayOpen(),
                new HarnessToolsDeclared()));
    }

    /** The version this projector writes. */
    public int current() {
        return current;
    }

    /** The oldest version the chain has a step from ({@link #current()} when it has none). */
    public int oldest() {
        return current - steps.size();
    }

    public List<CheckpointMigration> steps() {
        return steps;
    }

    /**
     * The stored checkpoint under the current version: as it is, or migrated step by step.
     *
     * @throws UnmigratableCheckpointException if it is older than the chain, a step refuses it, or it is newer than this
     *                                         projector
     */
    public Upgraded upgrade(Checkpoint stored) {
        int version = stored.getSchemaVersion();
        if (version > current) {
            throw new UnmigratableCheckpointException(stored.getSessionId(), version, current, Reason.NEWER_THAN_THIS_PROJECTOR, "");
        }
        if (version < oldest()) {
            throw new UnmigratableCheckpointException(stored.getSessionId(), version, current, Reason.OLDER_THAN_THE_CHAIN,
                    "the oldest is " + oldest());
        }
        Checkpoint checkpoint = stored;
        var applied = new ArrayList<String>();
        for (CheckpointMigration step : steps.subList(version - oldest(), steps.size())) {
            CheckpointMigration.Outcome outcome = step.migrate(checkpoint);
            if (outcome instanceof CheckpointMigration.NotMigratable refused) {
                throw new UnmigratableCheckpointException(stored.getSessionId(), version, current, Reason.REFUSED_BY_A_STEP,
                        "step " + step.from() + " → " + (step.from() + 1) + " (" + step.change() + "): " + refused.reason());
            } else if (outcome instanceof CheckpointMigration.Migrated migrated) {
                checkpoint = migrated.checkpoint();
                if (checkpoint.getSchemaVersion() != step.from() + 1) {
                    throw new IllegalStateException("step " + step.from() + " → " + (step.from() + 1) + " produced schemaVersion "
                            + checkpoint.getSchemaVersion());
                }
                applied.add(step.from() + " → " + (step.from() + 1) + ": " + step.change());
            } else {
                throw new IllegalStateException("unhandled outcome " + outcome);
            }
        }
        return new Upgraded(checkpoint, version, applied);
    }

    /**
     * A checkpoint under the current version.
     *
     * @param checkpoint    the checkpoint; the stored instance itself when no step applied
     * @param storedVersion the version it was stored under
     * @param applied       the steps applied, oldest first, one line each; empty when it was current
     */
    public record Upgraded(Checkpoint checkpoint, int storedVersion, List<String> applied) {
        public Upgraded {
            applied = List.copyOf(applied);
        }

        public boolean migrated() {
            return !applied.isEmpty();
        }
    }
}
