package dev.tether.projector.migration;

import dev.tether.avro.Checkpoint;

/**
 * One step of the checkpoint migration chain ({@link CheckpointMigrations}): a stored checkpoint of
 * {@code schemaVersion} {@link #from()} becomes one of {@code from() + 1}, or the step says why it cannot.
 *
 * <p>A step covers a change of meaning that Avro's schema resolution cannot express: by the time a step sees a
 * checkpoint, the registry's writer schema has already been resolved to this build's reader schema, so fields added
 * since carry their Avro defaults. The step decides whether those defaults, and everything else, mean under version
 * {@code from() + 1} what they meant when written; when they do not and the checkpoint alone cannot tell, it answers
 * {@link NotMigratable} and the checkpoint is rebuilt from the log. A step never guesses.
 *
 * <p>Steps are pure functions of the checkpoint: no log, no clock, no I/O. They never change their argument.
 */
public interface CheckpointMigration {

    /** The version this step migrates from; it produces {@code from() + 1}. */
    int from();

    /** One line: what changed in version {@code from() + 1}, for logs and docs. */
    String change();

    /** The checkpoint under version {@code from() + 1}, or why it cannot be told from the checkpoint alone. */
    Outcome migrate(Checkpoint checkpoint);

    /** What a step made of one checkpoint. */
    sealed interface Outcome permits Migrated, NotMigratable {}

    /** The checkpoint under the next version; its {@code schemaVersion} is {@code from() + 1}. */
    record Migrated(Checkpoint checkpoint) implements Outcome {}

    /** The checkpoint cannot be migrated: {@code reason} says what only the log knows. */
    record NotMigratable(String reason) implements Outcome {}
}
