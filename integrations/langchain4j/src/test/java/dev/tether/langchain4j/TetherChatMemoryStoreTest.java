package dev.tether.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.TokenUsage;
import dev.langchain4j.observability.api.event.AiServiceResponseReceivedEvent;
import dev.tether.client.NewEvent;
import dev.tether.client.SessionEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The memory store against an in-memory session-service ({@link FakeTether}): what each update appends, and what reads give back. */
class TetherChatMemoryStoreTest {

    private final FakeTether tether = new FakeTether();
    private final TetherChatMemoryStore store = TetherChatMemoryStore.builder(tether).workerId("worker-a").build();

    private ChatMemory window(Object id, int max) {
        return MessageWindowChatMemory.builder().id(id).maxMessages(max).chatMemoryStore(store).build();
    }

    private List<SessionEvent> log(Object memoryId) {
        return tether.log(store.sessionIdOf(memoryId));
    }

    private static List<SessionEvent> ofType(List<SessionEvent> log, String type) {
        return log.stream().filter(e -> e.type().equals(type)).toList();
    }

    private static List<SessionEvent> memoryRecords(List<SessionEvent> log) {
        return log.stream().filter(e -> e.type().equals("framework_state") && e.text("kind").equals(Optional.of("memory"))).toList();
    }

    private static JsonNode content(SessionEvent record) throws Exception {
        return MessageMapping.JSON.readTree(record.text("content").orElseThrow());
    }

    @Test
    void aNewMemory_isASessionOfItsOwn_withTheFirstSystemMessageAsItsPrompt_andEachAddAppendsOnlyTheNewMessage() throws Exception {
        ChatMemory memory = window("user-1", 100);
        memory.add(SystemMessage.from("You help with orders."));
        memory.add(UserMessage.from("Where is A-17?"));
        int before = tether.appendRequests;
        memory.add(AiMessage.from("It has shipped."));

        assertThat(tether.appendRequests - before).isEqualTo(1);
        List<SessionEvent> log = log("user-1");
        assertThat(store.sessionIdOf("user-1")).isEqualTo("lc4j-user-1");
        assertThat(log).extracting(SessionEvent::type).containsExactly("session_started", "session_claimed", "framework_state",
                "user_message", "framework_state", "assistant_message", "framework_state");
        assertThat(log.get(0).text("systemPrompt")).contains("You help with orders.");
        assertThat(log.get(0).field("harnessTools").orElseThrow().toString()).contains("\"name\":\"*\"", "\"recordedOnly\":true");
        // the last record extends the one before: it keeps its two messages by range and adds the new one's reference
        assertThat(content(log.get(6)).toString()).isEqualTo("{\"base\":5,\"items\":[[0,2],{\"s\":6}]}");
        assertThat(store.getMessages("user-1")).containsExactly(SystemMessage.from("You help with orders."), UserMessage.from("Where is A-17?"),
                AiMessage.from("It has shipped."));
    }

    /**
     * A memory whose session is a fork: its log starts with {@code session_forked}, which carries the session's system prompt
     * as {@code session_started} does. The prompt refers to it and reads back whole, in this store and in a new one.
     */
    @Test
    void aMemoryOnAFork_keepsItsSystemPrompt_whichTheForksFirstEventHolds() throws Exception {
        ChatMemory parent = window("trunk", 100);
        parent.add(SystemMessage.from("You help with orders."));
        parent.add(UserMessage.from("Where is A-17?"));
        assertThat(tether.fork("lc4j-trunk", 3, "lc4j-branch")).isInstanceOf(dev.tether.client.Forked.class);
        var onFork = TetherChatMemoryStore.builder(tether).build();

        onFork.updateMessages("branch", List.of(SystemMessage.from("You help with orders."), UserMessage.from("And B-2?")));

        List<ChatMessage> expected = List.of(SystemMessage.from("You help with orders."), UserMessage.from("And B-2?"));
        assertThat(onFork.getMessages("branch")).isEqualTo(expected);
        assertThat(TetherChatMemoryStore.builder(tether).build().getMessages("branch"))
                .as("read from the log by a store that did not write it").isEqualTo(expected);
        assertThat(log("branch").get(0).type()).isEqualTo("session_forked");
    }

    @Test
    void aWindowThatEvicts_isRecordedAsCompactions_theOriginalsStay_andEachRecordIsAsSmallAsTheChange() throws Exception {
        ChatMemory memory = window("chat", 6);
        memory.add(SystemMessage.from("Be brief."));
        for (int i = 1; i <= 30; i++) {
            memory.add(UserMessage.from("question " + i));
            memory.add(AiMessage.from("answer " + i));
        }
        List<SessionEvent> log = log("chat");

        // every message is in the log once, as its typed event, whatever the window evicted
        assertThat(ofType(log, "user_message")).hasSize(30);
        assertThat(ofType(log, "assistant_message")).hasSize(30);
        // each eviction is a compaction through the last message evicted, its sources the originals
        List<SessionEvent> compactions = ofType(log, "context_compacted");
        assertThat(compactions).hasSize(60 + 1 - 6);
        SessionEvent last = compactions.get(compactions.size() - 1);
        long throughSeq = last.longField("throughSeq").orElseThrow();
        assertThat(log.get((int) throughSeq - 1).text("content")).contains("question 28");
        assertThat(last.field("summarySourceSeqs").orElseThrow()).hasSize(1);
        assertThat(last.text("summary")).contains("1 message earlier dropped from the chat memory.");
        // storage linear in the conversation: no record holds more than two ranges and one new message
        for (SessionEvent record : memoryRecords(log)) {
            assertThat(content(record).path("items").size()).isLessThanOrEqualTo(3);
        }
        List<ChatMessage> expected = new ArrayList<>(List.of(SystemMessage.from("Be brief.")));
        for (int i = 28; i <= 30; i++) {
            if (i > 28) {
                expected.add(UserMessage.from("question " + i));
            }
            expected.add(AiMessage.from("answer " + i));
        }
        assertThat(memory.messages()).containsExactlyElementsOf(expected);
        assertThat(TetherChatMemoryStore.builder(tether).build().getMessages("chat")).containsExactlyElementsOf(expected);
    }

    @Test
    void aSummarizer_isACompactionWhoseSummaryIsItsNewFirstMessage_andThatMessageRefersToIt() throws Exception {
        List<ChatMessage> before = List.of(SystemMessage.from("s"), UserMessage.from("u1"), AiMessage.from("a1"), UserMessage.from("u2"),
                AiMessage.from("a2"));
        store.updateMessages("sum", before);
        AiMessage summary = AiMessage.from("Summary: the user asked u1, got a1.");
        List<ChatMessage> after = List.of(SystemMessage.from("s"), summary, UserMessage.from("u2"), AiMessage.from("a2"));
        store.updateMessages("sum", after);

        List<SessionEvent> log = log("sum");
        SessionEvent compaction = ofType(log, "context_compacted").get(0);
        long u1 = ofType(log, "user_message").get(0).seq();
        long a1 = ofType(log, "assistant_message").get(0).seq();
        assertThat(compaction.text("summary")).contains("Summary: the user asked u1, got a1.");
        assertThat(compaction.longField("throughSeq")).hasValue(a1);
        assertThat(compaction.field("summarySourceSeqs").orElseThrow().toString()).isEqualTo("[" + u1 + "," + a1 + "]");
        assertThat(ofType(log, "assistant_message")).hasSize(2); // the summary is no model turn
        JsonNode record = content(memoryRecords(log).get(1));
        assertThat(record.path("items").get(1).path("s").asLong()).isEqualTo(compaction.seq());
        assertThat(TetherChatMemoryStore.builder(tether).build().getMessages("sum")).containsExactlyElementsOf(after);
    }

    @Test
    void whenTheLogMovedMeanwhile_theUpdateIsPlannedAgainAtItsNewEnd() {
        store.updateMessages("moved", List.of(UserMessage.from("u1")));
        tether.serviceAppends(store.sessionIdOf("moved"), "MODEL", NewEvent.of("plan_updated", java.util.Map.of("items", List.of())));
        int before = tether.appendRequests;
        List<ChatMessage> next = List.of(UserMessage.from("u1"), AiMessage.from("a1"));

        store.updateMessages("moved", next);

        assertThat(tether.appendRequests - before).isEqualTo(2); // refused at the old end, then appended at the new one
        assertThat(log("moved")).extracting(SessionEvent::type).endsWith("plan_updated", "assistant_message", "framework_state");
        assertThat(TetherChatMemoryStore.builder(tether).build().getMessages("moved")).containsExactlyElementsOf(next);
    }

    /**
     * An append that reached Tether but whose answer was lost (the SDK's retries used up: a {@code TetherException}):
     * the update sent again, or a newer list, finds it in the log, and nothing is appended twice or lost.
     */
    @Test
    void anUpdateWhoseAnswerWasLost_isInTheLogOnce_whetherItIsSentAgainOrANewerListFollows() {
        var loseNextAnswer = new java.util.concurrent.atomic.AtomicBoolean();
        var lossy = (dev.tether.client.TetherClient) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {dev.tether.client.TetherClient.class}, (proxy, method, args) -> {
                    Object answer;
                    try {
                        answer = method.invoke(tether, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (method.getName().equals("append") && loseNextAnswer.getAndSet(false)) {
                        throw new dev.tether.client.TetherException("no answer", null, true);
                    }
                    return answer;
                });
        TetherChatMemoryStore onLossy = TetherChatMemoryStore.builder(lossy).workerId("worker-a").build();
        var ask = AiMessage.from(ToolExecutionRequest.builder().id("c1").name("search").arguments("{}").build());
        onLossy.updateMessages("lost", List.of(UserMessage.from("q")));

        loseNextAnswer.set(true);
        assertThatThrownBy(() -> onLossy.updateMessages("lost", List.of(UserMessage.from("q"), ask)))
                .isInstanceOf(dev.tether.client.TetherException.class);
        onLossy.updateMessages("lost", List.of(UserMessage.from("q"), ask)); // sent again
        loseNextAnswer.set(true);
        List<ChatMessage> answered = List.of(UserMessage.from("q"), ask, ToolExecutionResultMessage.from("c1", "search", "found"));
        assertThatThrownBy(() -> onLossy.updateMessages("lost", answered)).isInstanceOf(dev.tether.client.TetherException.class);
        List<ChatMessage> next = new ArrayList<>(answered);
        next.add(AiMessage.from("done"));
        onLossy.updateMessages("lost", next); // a newer list

        assertThat(onLossy.getMessages("lost")).containsExactlyElementsOf(next);
        assertThat(TetherChatMemoryStore.builder(tether).build().getMessages("lost")).containsExactlyElementsOf(next);
        assertThat(log("lost")).extracting(SessionEvent::type).containsExactly("session_started", "session_claimed", "user_message",
                "framework_state", "assistant_message", "framework_state", "tool_result", "framework_state", "assistant_message",
                "framework_state");
    }

    @Test
    void anotherProcessesClaim_fencesThisStore_andNothingItWritesIsAppended() {
        store.updateMessages("shared", List.of(UserMessage.from("u1")));
        TetherChatMemoryStore other = TetherChatMemoryStore.builder(tether).workerId("worker-b").build();
        other.updateMessages("shared", List.of(UserMessage.from("u1"), AiMessage.from("from b")));
        int events = log("shared").size();

        assertThatThrownBy(() -> store.updateMessages("shared", List.of(UserMessage.from("u1"), AiMessage.from("from a"))))
                .isInstanceOfSatisfying(MemoryTakenOverException.class, e -> {
                    assertThat(e.epoch()).isEqualTo(1);
                    assertThat(e.currentEpoch()).isEqualTo(2);
                });
        assertThatThrownBy(() -> store.updateMessages("shared", List.of(UserMessage.from("again")))).isInstanceOf(MemoryTakenOverException.class);
        assertThat(log("shared")).hasSize(events);
        assertThat(other.getMessages("shared")).containsExactly(UserMessage.from("u1"), AiMessage.from("from b"));
    }

    /**
     * A store given to a chat memory without tools (tools are optional) takes a memory another process took over back as
     * the README says, with {@code store.tools().resume(memoryId)}: a new claim, and its writes are appended again.
     */
    @Test
    void aStoreWithoutTools_takesBackAMemoryAnotherProcessTookOver_withResume() {
        store.updateMessages("back", List.of(UserMessage.from("u1")));
        TetherChatMemoryStore other = TetherChatMemoryStore.builder(tether).workerId("worker-b").build();
        other.updateMessages("back", List.of(UserMessage.from("u1"), AiMessage.from("from b")));
        assertThatThrownBy(() -> store.updateMessages("back", List.of(UserMessage.from("u1"), AiMessage.from("from a"))))
                .isInstanceOf(MemoryTakenOverException.class);

        assertThat(store.tools().resume("back").next()).isEqualTo(Resumed.Next.NOTHING);
        List<ChatMessage> next = List.of(UserMessage.from("u1"), AiMessage.from("from b"), UserMessage.from("u2"));
        store.updateMessages("back", next);

        assertThat(TetherChatMemoryStore.builder(tether).build().getMessages("back")).containsExactlyElementsOf(next);
        assertThat(ofType(log("back"), "session_claimed")).extracting(e -> e.text("workerId").orElseThrow())
                .containsExactly("worker-a", "worker-b", "worker-a");
        assertThat(log("back").get(0).field("harnessTools").orElseThrow()).hasSize(1); // still only the recorded-only "*"
    }

    @Test
    void aStoreKeepsTheLogsOfItsMostRecentlyUsedMemoriesOnly_andAnEvictedMemoryIsReadAgain_andExtendedOnce() {
        TetherChatMemoryStore small = TetherChatMemoryStore.builder(tether).workerId("worker-a").maxCachedMemories(2).build();
        for (String id : List.of("m1", "m2", "m3", "m4")) {
            small.updateMessages(id, List.of(UserMessage.from("hello from " + id), AiMessage.from("hi " + id)));
        }
        assertThat(small.cachedMemories()).isEqualTo(2);

        assertThat(small.getMessages("m1")).containsExactly(UserMessage.from("hello from m1"), AiMessage.from("hi m1"));
        small.updateMessages("m1", List.of(UserMessage.from("hello from m1"), AiMessage.from("hi m1"), UserMessage.from("more")));

        assertThat(small.cachedMemories()).isEqualTo(2);
        assertThat(ofType(log("m1"), "user_message")).extracting(e -> e.text("content").orElseThrow())
                .containsExactly("hello from m1", "more");
        assertThat(TetherChatMemoryStore.builder(tether).build().getMessages("m1"))
                .containsExactly(UserMessage.from("hello from m1"), AiMessage.from("hi m1"), UserMessage.from("more"));
    }

    @Test
    void anEvictedMemory_keepsItsClaim_soAnotherProcessesTakeOverStillFencesIt() {
        TetherChatMemoryStore small = TetherChatMemoryStore.builder(tether).workerId("worker-a").maxCachedMemories(1).build();
        small.updateMessages("shared", List.of(UserMessage.from("u1")));
        TetherChatMemoryStore other = TetherChatMemoryStore.builder(tether).workerId("worker-b").build();
        other.updateMessages("shared", List.of(UserMessage.from("u1"), AiMessage.from("from b")));
        small.updateMessages("elsewhere", List.of(UserMessage.from("evicts shared")));
        int events = log("shared").size();

        assertThat(small.getMessages("shared")).containsExactly(UserMessage.from("u1"), AiMessage.from("from b"));
        assertThatThrownBy(() -> small.updateMessages("shared", List.of(UserMessage.from("u1"), AiMessage.from("from a"))))
                .isInstanceOfSatisfying(MemoryTakenOverException.class, e -> {
                    assertThat(e.epoch()).isEqualTo(1);
                    assertThat(e.currentEpoch()).isEqualTo(2);
                });
        small.updateMessages("elsewhere", List.of(UserMessage.from("evicts shared again")));
        assertThatThrownBy(() -> small.updateMessages("shared", List.of(UserMessage.from("again")))).isInstanceOf(MemoryTakenOverException.class);
        assertThat(log("shared")).hasSize(events);
    }

    /**
     * A store another process took a memory from stays refused (README, "One writer") when that process then clears the
     * memory and goes on with it: the chat memory's next add reads the new session, and must still throw rather than claim
     * it from under its writer. resume takes it back.
     */
    @Test
    void aStoreAMemoryWasTakenFrom_isStillRefused_afterTheOtherClearedItAndWentOn_untilItResumes() {
        TetherChatMemoryStore other = TetherChatMemoryStore.builder(tether).workerId("worker-b").build();
        ChatMemory mine = window("cleared", 10);
        ChatMemory theirs = MessageWindowChatMemory.builder().id("cleared").maxMessages(10).chatMemoryStore(other).build();
        mine.add(UserMessage.from("u1"));
        theirs.add(AiMessage.from("from b"));
        assertThatThrownBy(() -> mine.add(UserMessage.from("from a"))).isInstanceOf(MemoryTakenOverException.class);
        theirs.clear();
        theirs.add(UserMessage.from("a fresh start"));
        List<SessionEvent> before = log("cleared");

        assertThatThrownBy(() -> mine.add(UserMessage.from("from a, later"))).isInstanceOf(MemoryTakenOverException.class);
        assertThat(log("cleared")).isEqualTo(before);
        theirs.add(AiMessage.from("b goes on")); // its writer was not fenced

        store.tools().resume("cleared");
        mine.add(UserMessage.from("from a, resumed"));
        assertThat(TetherChatMemoryStore.builder(tether).build().getMessages("cleared")).containsExactly(UserMessage.from("a fresh start"),
                AiMessage.from("b goes on"), UserMessage.from("from a, resumed"));
    }

    /**
     * A store another process took a memory from, which then erased it: nothing is left to fence, so resume (which finds
     * the memory empty) gives it back, whether the store kept the memory's log or evicted it meanwhile.
     */
    @Test
    void aStoreAMemoryWasTakenFrom_writesItAgainAfterTheOtherErasedIt_evictedMeanwhileOrNot() {
        for (int max : List.of(1, 10)) {
            String id = "erased-" + max;
            TetherChatMemoryStore mine = TetherChatMemoryStore.builder(tether).workerId("worker-a").maxCachedMemories(max).build();
            TetherChatMemoryStore other = TetherChatMemoryStore.builder(tether).workerId("worker-b").build();
            mine.updateMessages(id, List.of(UserMessage.from("u1")));
            other.updateMessages(id, List.of(UserMessage.from("u1"), AiMessage.from("from b")));
            assertThatThrownBy(() -> mine.updateMessages(id, List.of(UserMessage.from("u1"), AiMessage.from("from a"))))
                    .isInstanceOf(MemoryTakenOverException.class);
            mine.getMessages("elsewhere-" + max); // evicts the memory from the store that keeps one
            other.deleteMessages(id);

            assertThat(mine.tools().resume(id).next()).as("max %d", max).isEqualTo(Resumed.Next.NOTHING);
            MessageWindowChatMemory.builder().id(id).maxMessages(10).chatMemoryStore(mine).build().add(UserMessage.from("again"));

            assertThat(TetherChatMemoryStore.builder(tether).build().getMessages(id)).as("max %d", max).containsExactly(UserMessage.from("again"));
        }
    }

    @Test
    void anEvictedMemoryWhoseSessionWasErasedAndMadeAgainByAnother_writesNothingIntoTheNewOne() {
        TetherChatMemoryStore small = TetherChatMemoryStore.builder(tether).workerId("worker-a").maxCachedMemories(1).build();
        TetherChatMemoryStore other = TetherChatMemoryStore.builder(tether).workerId("worker-b").build();
        small.updateMessages("twice", List.of(UserMessage.from("first life")));
        small.updateMessages("elsewhere", List.of(UserMessage.from("evicts twice")));
        other.deleteMessages("twice");
        other.updateMessages("twice", List.of(UserMessage.from("second life")));
        List<SessionEvent> before = log("twice");

        assertThatThrownBy(() -> small.updateMessages("twice", List.of(UserMessage.from("first life"), UserMessage.from("late"))))
                .isInstanceOf(TetherMemoryException.class).hasMessageContaining("is gone");
        assertThat(log("twice")).isEqualTo(before);
    }

    @Test
    void aSecretInAMessage_isNeverStored_andComesBackRedacted_fromTheWriterAsFromTheLog() {
        String token = "ghp_" + "a".repeat(36);
        store.updateMessages("secret", List.of(UserMessage.from("my token is " + token), AiMessage.from("noted")));

        List<ChatMessage> expected = List.of(UserMessage.from("my token is [REDACTED:github-token]"), AiMessage.from("noted"));
        assertThat(store.getMessages("secret")).containsExactlyElementsOf(expected);
        assertThat(TetherChatMemoryStore.builder(tether).build().getMessages("secret")).containsExactlyElementsOf(expected);
        assertThat(log("secret")).noneMatch(e -> e.toJson().contains(token));
    }

    @Test
    void offloadedMessagesAndRecords_readBackWhole() {
        tether.offloadingOver(200);
        String longText = "x".repeat(5_000);
        List<ChatMessage> messages = new ArrayList<>();
        messages.add(UserMessage.from(longText));
        messages.add(AiMessage.from(ToolExecutionRequest.builder().id("c1").name("fetch").arguments("{}").build()));
        messages.add(ToolExecutionResultMessage.builder().id("c1").toolName("fetch").text(longText + "!").isError(false).build());
        messages.add(UserMessage.from("bob", longText + "?"));
        for (int i = 0; i < 20; i++) {
            messages.add(AiMessage.from("reply " + i)); // a long list: its records grow past the threshold too
        }
        store.updateMessages("big", messages);

        assertThat(log("big")).anyMatch(e -> e.field("artifact").isPresent() || e.field("contentRef").isPresent());
        assertThat(TetherChatMemoryStore.builder(tether).build().getMessages("big")).containsExactlyElementsOf(messages);
    }

    @Test
    void deleteMessages_erasesTheSession_andTheNextUpdateStartsAFreshOne() {
        store.updateMessages("gone", List.of(UserMessage.from("first life")));
        store.deleteMessages("gone");

        assertThat(tether.exists(store.sessionIdOf("gone"))).isFalse();
        assertThat(store.getMessages("gone")).isEmpty();
        store.updateMessages("gone", List.of(UserMessage.from("second life")));
        assertThat(store.getMessages("gone")).containsExactly(UserMessage.from("second life"));
        assertThat(ofType(log("gone"), "user_message")).singleElement().satisfies(e -> assertThat(e.text("content")).contains("second life"));
    }

    /** A store's delete is its writer's: once another process has taken the memory over, it erases nothing. */
    @Test
    void deleteMessages_byAStoreAnotherProcessTookTheMemoryFrom_erasesNothing_evictedMeanwhileOrNot() {
        for (int max : List.of(1, 10)) {
            String id = "taken-" + max;
            TetherChatMemoryStore mine = TetherChatMemoryStore.builder(tether).workerId("worker-a").maxCachedMemories(max).build();
            TetherChatMemoryStore other = TetherChatMemoryStore.builder(tether).workerId("worker-b").build();
            mine.updateMessages(id, List.of(UserMessage.from("u1")));
            other.updateMessages(id, List.of(UserMessage.from("u1"), AiMessage.from("from b")));
            mine.getMessages("elsewhere-" + max); // evicts the memory from the store that keeps one
            List<SessionEvent> before = log(id);

            assertThatThrownBy(() -> mine.deleteMessages(id)).as("max %d", max)
                    .isInstanceOfSatisfying(MemoryTakenOverException.class, e -> assertThat(e.getMessage()).contains("epoch 2"));
            assertThat(log(id)).as("max %d", max).isEqualTo(before);
            assertThatThrownBy(() -> mine.deleteMessages(id)).as("and again, knowing").isInstanceOf(MemoryTakenOverException.class);
            assertThat(log(id)).isEqualTo(before);

            other.deleteMessages(id); // its writer's delete erases it
            assertThat(tether.exists(other.sessionIdOf(id))).isFalse();
        }
    }

    /** Its session's start tells the two apart: another instance's session under the id repeats the epoch and the seqs. */
    @Test
    void aStoreWhoseSessionWasErasedAndMadeAgainByAnother_writesNothingIntoTheNewOne() {
        TetherChatMemoryStore other = TetherChatMemoryStore.builder(tether).workerId("worker-b").build();
        store.updateMessages("twice", List.of(UserMessage.from("first life")));
        other.deleteMessages("twice");
        other.updateMessages("twice", List.of(UserMessage.from("second life")));
        List<SessionEvent> before = log("twice");

        assertThatThrownBy(() -> store.updateMessages("twice", List.of(UserMessage.from("first life"), UserMessage.from("late"))))
                .isInstanceOf(TetherMemoryException.class).hasMessageContaining("is gone");
        assertThat(log("twice")).isEqualTo(before);
        assertThat(other.getMessages("twice")).containsExactly(UserMessage.from("second life"));
    }

    @Test
    void theUsageListener_givesAnAssistantMessageItsTokens() {
        AiMessage answer = AiMessage.from("42");
        var response = ChatResponse.builder().aiMessage(answer).tokenUsage(new TokenUsage(120, 7)).build();
        store.usageListener().onEvent(AiServiceResponseReceivedEvent.builder()
                .invocationContext(dev.langchain4j.invocation.InvocationContext.builder().chatMemoryId("u").build())
                .request(ChatRequest.builder().messages(UserMessage.from("q")).build()).response(response).build());
        store.updateMessages("u", List.of(UserMessage.from("q"), answer));

        SessionEvent assistant = ofType(log("u"), "assistant_message").get(0);
        assertThat(assistant.field("usage").orElseThrow().toString()).isEqualTo("{\"inputTokens\":120,\"outputTokens\":7}");
    }

    @Test
    void theSameAnswerInTwoMemories_carriesEachMemorysOwnUsage() {
        AiMessage answer = AiMessage.from("OK");
        for (var memory : List.of(java.util.Map.entry("first", 10), java.util.Map.entry("second", 900))) {
            store.usageListener().onEvent(AiServiceResponseReceivedEvent.builder()
                    .invocationContext(dev.langchain4j.invocation.InvocationContext.builder().chatMemoryId(memory.getKey()).build())
                    .request(ChatRequest.builder().messages(UserMessage.from("q")).build())
                    .response(ChatResponse.builder().aiMessage(answer).tokenUsage(new TokenUsage(memory.getValue(), 1)).build()).build());
        }
        store.updateMessages("first", List.of(UserMessage.from("q"), answer));
        store.updateMessages("second", List.of(UserMessage.from("q"), answer));

        assertThat(ofType(log("first"), "assistant_message").get(0).field("usage").orElseThrow().toString())
                .isEqualTo("{\"inputTokens\":10,\"outputTokens\":1}");
        assertThat(ofType(log("second"), "assistant_message").get(0).field("usage").orElseThrow().toString())
                .isEqualTo("{\"inputTokens\":900,\"outputTokens\":1}");
    }

    @Test
    void aResultOfAToolTetherRuns_thatTetherHasNoResultOf_isRefused_andNothingIsAppended() {
        TetherChatMemoryStore withTools = TetherChatMemoryStore.builder(tether).tools(new Object() {
            @Tool("looks an order up")
            public String lookup_order(String order) {
                return order;
            }
        }).build();
        var ask = AiMessage.from(ToolExecutionRequest.builder().id("c1").name("lookup_order").arguments("{\"order\":\"A\"}").build());
        withTools.updateMessages("t", List.of(UserMessage.from("q"), ask));
        int events = log("t").size();

        assertThatThrownBy(() -> withTools.updateMessages("t", List.of(UserMessage.from("q"), ask,
                ToolExecutionResultMessage.builder().id("c1").toolName("lookup_order").text("made up").isError(false).build())))
                .isInstanceOf(TetherMemoryException.class).hasMessageContaining("c1").hasMessageContaining("resume");
        assertThat(log("t")).hasSize(events);
        assertThat(log("t").get(0).field("harnessTools").orElseThrow().toString())
                .contains("{\"name\":\"lookup_order\",\"mutating\":false,\"canReconcile\":true,\"recordedOnly\":false}");
    }

    /**
     * Two result messages of one call asked for in an earlier update, written in one update (a memory set whole): the
     * first is the call's {@code tool_result}, the second a record, as when they come one update each. Tether takes one
     * result of a call: a second {@code tool_result} would be refused, and so would every later update of the memory.
     */
    @Test
    void twoResultsOfACallAskedEarlier_inOneUpdate_areStoredAsTheyAreOneUpdateEach() {
        var ask = AiMessage.from(ToolExecutionRequest.builder().id("c1").name("search").arguments("{}").build());
        store.updateMessages("twice", List.of(UserMessage.from("q"), ask));
        List<ChatMessage> next = List.of(UserMessage.from("q"), ask, ToolExecutionResultMessage.from("c1", "search", "first"),
                ToolExecutionResultMessage.from("c1", "search", "second"), AiMessage.from("done"));

        store.updateMessages("twice", next);

        assertThat(store.getMessages("twice")).containsExactlyElementsOf(next);
        assertThat(TetherChatMemoryStore.builder(tether).build().getMessages("twice")).containsExactlyElementsOf(next);
        assertThat(ofType(log("twice"), "tool_result")).singleElement().satisfies(r -> assertThat(r.text("content")).contains("first"));
    }

    @Test
    void aMemoryIdThatIsNoSessionId_isHashed() {
        assertThat(store.sessionIdOf(42)).isEqualTo("lc4j-42");
        assertThat(store.sessionIdOf("a user/with spaces")).matches("lc4j-h[0-9a-f]{40}");
        assertThat(TetherChatMemoryStore.builder(tether).sessionPrefix("orders-").build().sessionIdOf("u1")).isEqualTo("orders-u1");
    }

    @Test
    void anAiMessageWhoseCallIdOrToolNameIsLongerThanTetherTakes_isStoredWholeAsARecord_andTheMemoryGoesOn() {
        String longId = "call_" + "x".repeat(200);
        var ask = AiMessage.from(ToolExecutionRequest.builder().id(longId).name("search").arguments("{}").build(),
                ToolExecutionRequest.builder().id("c2").name("s".repeat(129)).arguments("{}").build());
        var written = new ArrayList<ChatMessage>(List.of(UserMessage.from("q"), ask));
        store.updateMessages("long", written);
        written.add(ToolExecutionResultMessage.from(longId, "search", "found"));
        store.updateMessages("long", written);
        written.add(AiMessage.from("done"));
        store.updateMessages("long", written);

        assertThat(store.getMessages("long")).containsExactlyElementsOf(written);
        assertThat(TetherChatMemoryStore.builder(tether).build().getMessages("long")).containsExactlyElementsOf(written);
        assertThat(ofType(log("long"), "assistant_message")).singleElement().satisfies(e -> assertThat(e.text("content")).contains("done"));
    }

    @Test
    void badInput_isRefusedWithAnErrorNamingTheField_andLeavesTheStoredMemoryAsItWas() {
        store.updateMessages("bad", List.of(UserMessage.from("kept")));
        List<SessionEvent> before = log("bad");
        var withNull = new ArrayList<ChatMessage>(List.of(UserMessage.from("kept")));
        withNull.add(null);

        assertThatThrownBy(() -> store.updateMessages(null, List.of(UserMessage.from("x")))).hasMessageContaining("memoryId");
        assertThatThrownBy(() -> store.updateMessages("bad", null)).hasMessageContaining("messages");
        assertThatThrownBy(() -> store.updateMessages("bad", withNull)).hasMessageContaining("messages[1]");
        TetherChatMemoryStore unmapped = TetherChatMemoryStore.builder(tether).sessionIds(id -> null).build();
        assertThatThrownBy(() -> unmapped.getMessages("bad")).hasMessageContaining("sessionIds").hasMessageContaining("bad");

        assertThat(log("bad")).isEqualTo(before);
        assertThat(store.getMessages("bad")).containsExactly(UserMessage.from("kept"));
    }

    /** The session-service refuses a command over its maxCommandBytes (512 KiB after offloading): an update that would be one is split. */
    @Test
    void anUpdateTooLargeForOneAppend_isWrittenInParts_eachAWholeMemory_withEveryMessageOnce() {
        tether.refusingRequestsOver(64 * 1024);
        var history = new ArrayList<ChatMessage>(); // an imported conversation, as ChatMemory.set writes it
        history.add(SystemMessage.from("You help with orders."));
        for (int i = 0; i < 400; i++) {
            history.add(i % 2 == 0 ? UserMessage.from("question " + i + " " + "q".repeat(300))
                    : AiMessage.from("answer " + i + " " + "a".repeat(300)));
        }

        store.updateMessages("bulk", history);

        assertThat(store.getMessages("bulk")).containsExactlyElementsOf(history);
        assertThat(TetherChatMemoryStore.builder(tether).build().getMessages("bulk")).containsExactlyElementsOf(history);
        assertThat(ofType(log("bulk"), "user_message")).hasSize(200);
        assertThat(ofType(log("bulk"), "assistant_message")).hasSize(200);
        assertThat(memoryRecords(log("bulk"))).hasSizeGreaterThan(1);
        // and the memory goes on: the next update appends only its message
        history.add(UserMessage.from("one more"));
        store.updateMessages("bulk", history);
        assertThat(ofType(log("bulk"), "user_message")).hasSize(201);
        assertThat(TetherChatMemoryStore.builder(tether).build().getMessages("bulk")).containsExactlyElementsOf(history);
    }

    @Test
    void aSingleMessageTooLargeForAnAppend_isRefusedWithTetherReason_andNothingIsAppended() {
        tether.refusingRequestsOver(4 * 1024);
        store.updateMessages("one", List.of(UserMessage.from("small")));
        List<SessionEvent> before = log("one");

        assertThatThrownBy(() -> store.updateMessages("one", List.of(UserMessage.from("small"), UserMessage.from("x".repeat(8 * 1024)))))
                .isInstanceOf(TetherMemoryException.class).hasMessageContaining("413").hasMessageContaining("too_large");
        assertThat(log("one")).isEqualTo(before);
        assertThat(store.getMessages("one")).containsExactly(UserMessage.from("small"));
    }
}
