package dev.tether.core.event;

import java.util.List;

/** Checks the compact constructors of the event records share. */
final class Fields {

    private Fields() {}

    static String text(String value, String field) {
        if (value == null) {
            throw new InvalidEventException(field, "is required");
        }
        return value;
    }

    static String nonBlank(String value, String field) {
        if (text(value, field).isBlank()) {
            throw new InvalidEventException(field, "must not be blank");
        }
        return value;
    }

    static <T> T required(T value, String field) {
        if (value == null) {
            throw new InvalidEventException(field, "is required");
        }
        return value;
    }

    static <T> List<T> list(List<T> value, String field) {
        if (value == null) {
            return List.of();
        }
        for (int i = 0; i < value.size(); i++) {
            if (value.get(i) == null) {
                throw new InvalidEventException(field + "[" + i + "]", "must not be null");
            }
        }
        return List.copyOf(value);
    }

    static long nonNegative(long value, String field) {
        if (value < 0) {
            throw new InvalidEventException(field, "must not be negative");
        }
        return value;
    }

    static long positive(long value, String field) {
        if (value < 1) {
            throw new InvalidEventException(field, "must be at least 1");
        }
        return value;
    }
}
