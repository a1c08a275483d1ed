package dev.tether.client;

import java.util.Objects;
import java.util.Optional;

/**
 * What a harness-run attempt produced, reported as the call's {@code tool_result}: {@link #ok}, {@link #error} (the
 * tool ran and failed, with no effect the model should not know about), {@link #cancelled} (the harness stopped it)
 * or {@link #unknown} (it may or may not have taken effect: a person decides).
 *
 * <p>The factories take null content as none: a call that answered nothing is still a result, not a function that threw.
 *
 * @param status  the result's status
 * @param content what the model sees; empty for none
 */
public record ToolOutput(ToolStatus status, Optional<String> content) {

    public ToolOutput {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(content, "content");
    }

    public static ToolOutput ok(String content) {
        return new ToolOutput(ToolStatus.OK, Optional.ofNullable(content));
    }

    public static ToolOutput error(String content) {
        return new ToolOutput(ToolStatus.ERROR, Optional.ofNullable(content));
    }

    public static ToolOutput cancelled(String content) {
        return new ToolOutput(ToolStatus.CANCELLED, Optional.ofNullable(content));
    }

    public static ToolOutput unknown(String reason) {
        return new ToolOutput(ToolStatus.UNKNOWN, Optional.ofNullable(reason));
    }
}
