package dev.tether.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A memory erased and written again by another instance is read as the new session, never mixed with the erased one. */
class MemoryMadeAgainTest {

    private final FakeTether tether = new FakeTether();
    private final TetherChatMemoryStore store = TetherChatMemoryStore.builder(tether).workerId("worker-a").build();

    /**
     * Another instance deletes the memory and writes it again, as long as or longer than this store had read it: this
     * store's next read must give the new session's messages, not fold the new log's tail onto the erased one's.
     */
    @Test
    void aMemoryErasedAndWrittenAgainByAnother_atLeastAsLong_readsAsTheNewSession() {
        TetherChatMemoryStore other = TetherChatMemoryStore.builder(tether).workerId("worker-b").build();
        store.updateMessages("twice", List.of(UserMessage.from("first life"), AiMessage.from("first answer")));
        assertThat(store.getMessages("twice")).hasSize(2);

        other.deleteMessages("twice");
        List<ChatMessage> second = List.of(UserMessage.from("second life"), AiMessage.from("second answer"));
        other.updateMessages("twice", second);
        List<ChatMessage> more = List.of(UserMessage.from("second life"), AiMessage.from("second answer"), UserMessage.from("more"));
        other.updateMessages("twice", more);

        assertThat(TetherChatMemoryStore.builder(tether).build().getMessages("twice")).as("a fresh store").containsExactlyElementsOf(more);
        assertThat(store.getMessages("twice")).as("the store that read the erased session").containsExactlyElementsOf(more);
    }

    /** The same, with a new session exactly as long as the erased one was when read. */
    @Test
    void aMemoryErasedAndWrittenAgainByAnother_asLong_readsAsTheNewSession() {
        TetherChatMemoryStore other = TetherChatMemoryStore.builder(tether).workerId("worker-b").build();
        store.updateMessages("same", List.of(UserMessage.from("first life"), AiMessage.from("first answer")));
        other.deleteMessages("same");
        List<ChatMessage> second = List.of(UserMessage.from("second life"), AiMessage.from("second answer"));
        other.updateMessages("same", second);

        assertThat(store.getMessages("same")).containsExactlyElementsOf(second);
    }
}
