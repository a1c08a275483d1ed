package dev.tether.kit.kafka;

import java.util.Optional;
import java.util.OptionalInt;
import org.apache.kafka.common.errors.SerializationException;

/**
 * A stored value that this release cannot read, and will not guess at: one written by a newer release
 * ({@link #newer}), one with a field the format does not have ({@link #unknownField}), without one it requires
 * ({@link #missingField}), with a field of the wrong kind ({@link #badField}), one an older version's step cannot carry
 * over ({@link #unmigratable}), or bytes that are not a value of the format at all ({@link #unreadable}). The message
 * names the store, the version the value was written in and, where one is to blame, the field (by its path, e.g.
 * {@code openCalls.c1.approval}); never the value's content (it may hold a session's content).
 *
 * <p>Thrown from a store read. In a stream task it fails the task (nothing is skipped or half-written: the
 * transaction aborts); in a REST read it answers 503 with {@code Retry-After}
 * ({@code dev.tether.kit.service.rest.ApiErrorMappers}), since another instance, or this one once upgraded, can
 * answer.
 */
public final class StoreFormatException extends SerializationException {

    private final String store;
    private final OptionalInt version;
    private final Optional<String> field;

    private StoreFormatException(String store, OptionalInt version, Optional<String> field, String message, Throwable cause) {
        super(store + ": " + message, cause);
        this.store = store;
        this.version = version;
        this.field = field;
    }

    /** A value of {@code found}, newer than {@code current}, the newest version this release reads. */
    public static StoreFormatException newer(String store, int found, int current) {
        return new StoreFormatException(store, OptionalInt.of(found), Optional.empty(), "a value of version " + found + ", newer than "
                + current + ", the newest this release reads: a newer release wrote it. Not guessed at: this instance cannot use the"
                + " value until it runs that release (finish the upgrade), or until the newer release writes version " + current
                + " again (tether.stores.write-version." + store + "=" + current + ", before a rollback)", null);
    }

    /** A value of {@code version} with a field {@code path} that version {@code current} does not have. */
    public static StoreFormatException unknownField(String store, int version, int current, String path, Throwable cause) {
        return new StoreFormatException(store, OptionalInt.of(version), Optional.of(path), of(version, current)
                + " has an unknown field '" + path + "': its format has no such field, so reading it would lose it", cause);
    }

    /** A value of {@code version} without the field {@code path}, which version {@code current} requires. */
    public static StoreFormatException missingField(String store, int version, int current, String path, Throwable cause) {
        return new StoreFormatException(store, OptionalInt.of(version), Optional.of(path), of(version, current)
                + " has no field '" + path + "', which its format requires (a field that may be empty is written as null)", cause);
    }

    /** A value of {@code version} whose field {@code path} is not of its kind ({@code why}). */
    public static StoreFormatException badField(String store, int version, int current, String path, String why, Throwable cause) {
        return new StoreFormatException(store, OptionalInt.of(version), Optional.of(path), of(version, current)
                + " has a field '" + path + "' that its format cannot read: " + why, cause);
    }

    /** A value of {@code version} that the step to {@code version + 1} cannot carry over, for {@code why}. */
    public static StoreFormatException unmigratable(String store, int version, String why) {
        return new StoreFormatException(store, OptionalInt.of(version), Optional.empty(), "a value of version " + version
                + " cannot be read as version " + (version + 1) + ": " + why, null);
    }

    /** A value of {@code version} that the format reads but its fields break a rule of the value ({@code why}). */
    public static StoreFormatException invalid(String store, int version, int current, String why, Throwable cause) {
        return new StoreFormatException(store, OptionalInt.of(version), Optional.empty(), of(version, current) + " is not a valid value: "
                + why, cause);
    }

    /** Bytes that are no value of the format, whatever its version ({@code why}: what is wrong, without the content). */
    public static StoreFormatException unreadable(String store, String why, Throwable cause) {
        return new StoreFormatException(store, OptionalInt.empty(), Optional.empty(), "an unreadable value: " + why, cause);
    }

    private static String of(int version, int current) {
        return version == current ? "a value of version " + version : "a value of version " + version + " (read as version " + current + ")";
    }

    /** The store whose value could not be read. */
    public String store() {
        return store;
    }

    /** The version the value was written in (0: before store formats had versions), if the value says. */
    public OptionalInt version() {
        return version;
    }

    /** The field to blame, by its path from the value ({@code openCalls.c1.approval}), if one is. */
    public Optional<String> field() {
        return field;
    }
}
