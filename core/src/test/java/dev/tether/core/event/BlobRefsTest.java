package dev.tether.core.event;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.core.blob.BlobRef;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class BlobRefsTest {

    private static final BlobRef A = BlobRef.of("a".repeat(64), 70_000, "the beginning");
    private static final BlobRef B = BlobRef.of("b".repeat(64), 80_000, "");

    @Test
    void theEventsThatCanReferToABlob_areExactlyThoseWithABlobRefField() {
        var carrying = Arrays.stream(EventPayload.class.getPermittedSubclasses())
                .filter(type -> Arrays.stream(type.getRecordComponents()).anyMatch(c -> c.getType() == BlobRef.class))
                .map(Class::getSimpleName)
                .toList();

        // the erasure of a session's blobs (the projector's blob references) relies on this list being whole
        assertThat(carrying).containsExactlyInAnyOrder("UserMessage", "AssistantMessage", "ApprovalRequested", "ToolResult",
                "ContextCompacted", "FrameworkState");
    }

    @Test
    void givenAPayloadWithAnOffloadedField_thenItsRefIsFound() {
        assertThat(BlobRefs.of(new UserMessage("the beginning", A))).containsExactly(A);
        assertThat(BlobRefs.of(new AssistantMessage("", B, List.of(), null))).containsExactly(B);
        assertThat(BlobRefs.of(new ToolResult("c1", "k", ToolStatus.OK, "preview", A))).containsExactly(A);
        assertThat(BlobRefs.of(new ContextCompacted(3, "sum", B, List.of(1L, 2L)))).containsExactly(B);
        assertThat(BlobRefs.of(new ApprovalRequested("c1", "write_file", "preview", A))).containsExactly(A);
    }

    @Test
    void givenAPayloadWithoutOne_thenNoneIsFound() {
        assertThat(BlobRefs.of(new UserMessage("short", null))).isEmpty();
        assertThat(BlobRefs.of(new ToolResult("c1", "k", ToolStatus.OK, "inline", null))).isEmpty();
        assertThat(BlobRefs.of(new SessionClosed("done"))).isEmpty();
        assertThat(BlobRefs.of(new UnknownEvent("from_a_newer_release"))).isEmpty();
    }
}
