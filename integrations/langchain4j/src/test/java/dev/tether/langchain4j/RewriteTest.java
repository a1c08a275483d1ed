package dev.tether.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** How a new message list is matched to the old one: the shapes LangChain4j's memories write. */
class RewriteTest {

    @Test
    void anExtension_keepsEveryOldMessageInPlace_andTheRestIsNew() {
        assertThat(Rewrite.of(List.of("s", "u1", "a1"), List.of("s", "u1", "a1", "u2", "a1")).matches()).containsExactly(0, 1, 2, -1, -1);
    }

    @Test
    void aWindowThatEvicts_keepsTheSystemMessageFirst_andTheTail() {
        assertThat(Rewrite.of(List.of("s", "u1", "a1", "u2", "a2"), List.of("s", "u2", "a2", "u3")).matches()).containsExactly(0, 3, 4, -1);
    }

    @Test
    void aWindowThatEvicts_aMessageEqualToANewOne_doesNotMistakeTheNewOneForIt() {
        // "yes" again at the end is new: the run ending in the old list's last message is what stays
        assertThat(Rewrite.of(List.of("s", "yes", "a1", "no", "a2"), List.of("s", "a1", "no", "a2", "yes")).matches())
                .containsExactly(0, 2, 3, 4, -1);
    }

    @Test
    void aReplacedSystemMessage_dropsTheOldOne_andAddsTheNewOneAtTheEnd() {
        assertThat(Rewrite.of(List.of("s1", "u1", "a1"), List.of("u1", "a1", "s2")).matches()).containsExactly(1, 2, -1);
    }

    @Test
    void aSummary_inFrontOfTheKeptMessages_isNew() {
        assertThat(Rewrite.of(List.of("s", "u1", "a1", "u2", "a2"), List.of("s", "summary", "u2", "a2", "u3")).matches())
                .containsExactly(0, -1, 3, 4, -1);
    }

    @Test
    void aMessageRemovedFromTheMiddle_keepsTheOthers() {
        assertThat(Rewrite.of(List.of("a", "b", "c"), List.of("a", "c", "x")).matches()).containsExactly(0, 2, -1);
    }

    @Test
    void aListWithoutTheOldLastMessage_isMatchedInOrder() {
        assertThat(Rewrite.of(List.of("a", "b", "c"), List.of("a", "b", "x")).matches()).containsExactly(0, 1, -1);
        assertThat(Rewrite.of(List.of("a", "b", "c"), List.of("x", "b")).matches()).containsExactly(-1, 1);
        assertThat(Rewrite.of(List.of("a", "b"), List.of()).matches()).isEmpty();
        assertThat(Rewrite.of(List.of(), List.of("a")).matches()).containsExactly(-1);
    }
}
