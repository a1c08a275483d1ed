package dev.tether.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.core.event.WellFormedText;
import dev.tether.tools.sandbox.SandboxViolation;
import dev.tether.tools.sandbox.Workspace;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * A call's arguments, checked: a JSON object with no names but the tool's, read with a typed getter per argument.
 * Every error is a {@link ToolException} naming the argument. A {@code null} value counts as absent.
 *
 * <p>Immutable, so thread-safe.
 */
public final class ToolArguments {

    private final JsonNode arguments;

    private ToolArguments(JsonNode arguments) {
        this.arguments = arguments;
    }

    /**
     * @param arguments the call's arguments
     * @param names     the names the tool takes
     * @throws ToolException if {@code arguments} is not an object, or has a name the tool does not take
     */
    public static ToolArguments of(JsonNode arguments, Set<String> names) throws ToolException {
        if (arguments == null || !arguments.isObject()) {
            throw ToolException.invalidArgument("arguments", "must be a JSON object");
        }
        for (var field : arguments.properties()) {
            String name = field.getKey();
            if (!names.contains(name)) {
                throw ToolException.invalidArgument(name, "unknown; this tool takes " + new TreeSet<>(names));
            }
        }
        return new ToolArguments(arguments);
    }

    /** A string that must be there; it may be empty. Every string argument must be valid Unicode (no unpaired surrogate). */
    public String string(String name) throws ToolException {
        return optionalString(name).orElseThrow(() -> ToolException.invalidArgument(name, "is required"));
    }

    /** A string that must be there and not be empty. */
    public String nonEmptyString(String name) throws ToolException {
        String value = string(name);
        if (value.isEmpty()) {
            throw ToolException.invalidArgument(name, "must not be empty");
        }
        return value;
    }

    public Optional<String> optionalString(String name) throws ToolException {
        JsonNode value = present(name);
        if (value == null) {
            return Optional.empty();
        }
        if (!value.isTextual()) {
            throw ToolException.invalidArgument(name, "must be a string");
        }
        String text = value.textValue();
        if (!WellFormedText.isWellFormed(text)) {
            // JSON allows "\ud83d" alone; it has no UTF-8 encoding (it would be written as '?'), and an edit's old text
            // holding one would match half of a character of the file and destroy the other half
            throw ToolException.invalidArgument(name, "must be valid Unicode: it holds half of a surrogate pair");
        }
        return Optional.of(text);
    }

    public boolean optionalBoolean(String name, boolean absent) throws ToolException {
        JsonNode value = present(name);
        if (value == null) {
            return absent;
        }
        if (!value.isBoolean()) {
            throw ToolException.invalidArgument(name, "must be true or false");
        }
        return value.booleanValue();
    }

    /** An integer from {@code min} to {@code max}, or {@code absent}. */
    public int optionalInt(String name, int absent, int min, int max) throws ToolException {
        JsonNode value = present(name);
        if (value == null) {
            return absent;
        }
        if (!value.isIntegralNumber() || !value.canConvertToInt() || value.intValue() < min || value.intValue() > max) {
            throw ToolException.invalidArgument(name, "must be an integer from " + min + " to " + max);
        }
        return value.intValue();
    }

    /** An object of string values, in the order given; empty if absent. */
    public Map<String, String> optionalStringMap(String name) throws ToolException {
        JsonNode value = present(name);
        if (value == null) {
            return Map.of();
        }
        if (!value.isObject()) {
            throw ToolException.invalidArgument(name, "must be an object of strings");
        }
        var map = new LinkedHashMap<String, String>();
        for (var entry : value.properties()) {
            if (!entry.getValue().isTextual()) {
                throw ToolException.invalidArgument(name + "." + entry.getKey(), "must be a string");
            }
            map.put(entry.getKey(), entry.getValue().textValue());
        }
        return map;
    }

    /**
     * A path argument resolved inside the workspace (see {@link Workspace#resolve}).
     *
     * @param absent the path when the argument is absent, or null if it is required
     * @throws ToolException {@link ToolException.Kind#REFUSED} for a path that leads outside the workspace
     */
    public Path path(String name, Workspace workspace, String absent) throws ToolException {
        String userPath = absent == null ? string(name) : optionalString(name).orElse(absent);
        try {
            return workspace.resolve(userPath);
        } catch (SandboxViolation e) {
            throw ToolException.refused(name, e.getMessage());
        }
    }

    private JsonNode present(String name) {
        JsonNode value = arguments.get(name);
        return value == null || value.isNull() ? null : value;
    }
}
