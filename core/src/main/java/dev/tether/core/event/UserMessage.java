package dev.tether.core.event;

import dev.tether.core.blob.BlobRef;

/** {@code user_message}: A message from the user. */
public record UserMessage(String content, BlobRef contentRef) implements EventPayload {

    public static final String TYPE = "user_message";

    public UserMessage {
        Fields.text(content, "content");
    }

    @Override
    public String type() {
        return TYPE;
    }
}
