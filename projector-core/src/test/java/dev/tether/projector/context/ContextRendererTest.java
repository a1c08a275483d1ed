package dev.tether.projector.context;

import static dev.tether.projector.context.SessionFixture.call;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.core.blob.BlobRef;
import dev.tether.core.event.ApprovalGranted;
import dev.tether.core.event.ApprovalRequested;
import dev.tether.core.event.ApprovalScope;
import dev.tether.core.event.AssistantMessage;
import dev.tether.core.event.AuthorizationBasis;
import dev.tether.core.event.ContextCompacted;
import dev.tether.core.event.Event;
import dev.tether.core.event.OutcomeResolution;
import dev.tether.core.event.PlanItem;
import dev.tether.core.event.PlanItemStatus;
import dev.tether.core.event.PlanUpdated;
import dev.tether.core.event.ResumeReason;
import dev.tether.core.event.SessionClaimed;
import dev.tether.core.event.SessionClosed;
import dev.tether.core.event.SessionMigrated;
import dev.tether.core.event.SessionResumed;
import dev.tether.core.event.SessionStarted;
import dev.tether.core.event.StepCompleted;
import dev.tether.core.event.SubagentResult;
import dev.tether.core.event.ToolCall;
import dev.tether.core.event.ToolCallAuthorized;
import dev.tether.core.event.ToolMode;
import dev.tether.core.event.ToolOutcomeResolved;
import dev.tether.core.event.ToolResult;
import dev.tether.core.event.ToolStatus;
import dev.tether.core.event.UnknownEvent;
import dev.tether.core.event.UserMessage;
import dev.tether.projector.domain.ContextInput;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class ContextRendererTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CANCELLED = "{\"error\":\"cancelled_by_user\"}";
    private static final BlobRef BLOB = BlobRef.of("ab".repeat(32), 123_456, "The first lines");

    @Nested
    class Header {

        @Test
        void givenNewSession_whenRenderedForOpenAi_thenSystemPromptFirstObjectiveVerbatimSecondFactsThird() {
            var log = new SessionFixture().user("Please start.");

            ModelContext context = ContextRenderer.render(log.input(), ContextFormat.OPENAI);

            assertThat(context.system()).isNull();
            assertThat(context.messages().subList(0, 4)).containsExactly(
                    Map.of("role", "system", "content", SessionFixture.SYSTEM_PROMPT),
                    Map.of("role", "user", "content", SessionFixture.OBJECTIVE),
                    Map.of("role", "user", "content", log.input().facts()),
                    Map.of("role", "user", "content", "Please start."));
        }

        @Test
        void givenNewSession_whenRenderedForAnthropic_thenSystemApartAndObjectiveOpensFirstUserMessage() {
            var log = new SessionFixture().user("Please start.");

            ModelContext context = ContextRenderer.render(log.input(), ContextFormat.ANTHROPIC);

            assertThat(context.system()).isEqualTo(SessionFixture.SYSTEM_PROMPT);
            assertThat(context.messages().get(0).get("role")).isEqualTo("user");
            assertThat(texts(context.messages().get(0))).startsWith(SessionFixture.OBJECTIVE, log.input().facts(), "Please start.");
        }

        @Test
        void givenNoCompaction_whenRendered_thenNoSummaryMessage() {
            var log = new SessionFixture().user("Please start.");

            ModelContext context = ContextRenderer.render(log.input(), ContextFormat.OPENAI);

            assertThat(contents(context)).noneMatch(content -> content.startsWith("Session so far:"));
        }

        @Test
        void givenCompaction_whenRendered_thenSummaryFollowsObjectiveAndOnlyLaterEventsAppear() {
            var log = new SessionFixture().user("old question").assistant("old answer")
                    .append(new ContextCompacted(3, "The user asked; the model answered.", null, List.of(2L, 3L)))
                    .user("new question");

            ModelContext context = ContextRenderer.render(log.input(), ContextFormat.OPENAI);

            assertThat(contents(context).subList(1, 5)).containsExactly(
                    SessionFixture.OBJECTIVE,
                    "Session so far:\nThe user asked; the model answered.",
                    "Facts:\n- captured with the compaction through seq 3",
                    "new question");
            assertThat(contents(context)).doesNotContain("old question", "old answer");
        }

        @Test
        void givenOffloadedSummary_whenRendered_thenSummaryShowsPreviewAndMarker() {
            var log = new SessionFixture().user("q")
                    .append(new ContextCompacted(2, "The first lines", BLOB, List.of()));

            ModelContext context = ContextRenderer.render(log.input(), ContextFormat.OPENAI);

            assertThat(contents(context).get(2)).isEqualTo(
                    "Session so far:\nThe first lines\n[full content: blob://sha256/" + "ab".repeat(32) + ", 123456 bytes]");
        }
    }

    @Nested
    class ToolCalls {

        @Test
        void givenCallWithoutResult_whenRenderedForOpenAi_thenToolMessageCancelsIt() {
            var log = new SessionFixture().user("go").assistant("Reading.", call("c-1"));

            ModelContext context = ContextRenderer.render(log.input(), ContextFormat.OPENAI);

            int assistant = indexOfRole(context, "assistant");
            assertThat(context.messages().get(assistant + 1))
                    .containsExactly(Map.entry("role", "tool"), Map.entry("tool_call_id", "c-1"), Map.entry("content", CANCELLED));
        }

        @Test
        void givenAHarnessRunCallStartedWithoutResult_whenRenderedInBothFormats_thenItIsClosedLikeAnyDanglingCall_andAResultShowsAsAny() {
            var dangling = new SessionFixture().user("go").assistant("Sending.", call("c-1"))
                    .append(new ToolCallAuthorized("c-1", AuthorizationBasis.POLICY))
                    .append(new dev.tether.core.event.ToolCallStarted("c-1", "key-c-1", 0, 1));
            var answered = new SessionFixture().user("go").assistant("Sending.", call("c-1"))
                    .append(new ToolCallAuthorized("c-1", AuthorizationBasis.POLICY))
                    .append(new dev.tether.core.event.ToolCallStarted("c-1", "key-c-1", 0, 1));
            var executorAnswered = new SessionFixture().user("go").assistant("Sending.", call("c-1"))
                    .append(new ToolCallAuthorized("c-1", AuthorizationBasis.POLICY));
            answered.result("c-1", ToolStatus.OK, "sent");
            executorAnswered.result("c-1", ToolStatus.OK, "sent");

            ModelContext openAi = ContextRenderer.render(dangling.input(), ContextFormat.OPENAI);
            int assistant = indexOfRole(openAi, "assistant");
            assertThat(openAi.messages().get(assistant + 1))
                    .containsExactly(Map.entry("role", "tool"), Map.entry("tool_call_id", "c-1"), Map.entry("content", CANCELLED));
            ModelContext anthropic = ContextRenderer.render(dangling.input(), ContextFormat.ANTHROPIC);
            assertThat(blocks(anthropic.messages().get(indexOfRole(anthropic, "assistant") + 1)).get(0)).isEqualTo(Map.of(
                    "type", "tool_result", "tool_use_id", "c-1", "content", CANCELLED, "is_error", true));
            for (ContextFormat format : ContextFormat.values()) {
                var withStart = ContextRenderer.render(answered.input(), format).messages();
                var without = ContextRenderer.render(executorAnswered.input(), format).messages();
                assertThat(withStart.subList(0, withStart.size() - 1)).as("the start is bookkeeping (the volatile tail aside): " + format)
                        .isEqualTo(without.subList(0, without.size() - 1));
            }
        }

        @Test
        void givenACallIdUsedAgain_asAForksOwnCallMayReuseItsParents_whenRendered_thenEveryIdOnce_andEachResultWithItsCall() {
            // the parent's c-1 before the fork point, then the fork's own c-1 and a c-1_2 that the first renaming would take
            var log = new SessionFixture().user("go").assistant("Reading.", call("c-1")).result("c-1", ToolStatus.OK, "first")
                    .user("again").assistant("Reading again.", call("c-1"), call("c-1_2"))
                    .result("c-1_2", ToolStatus.OK, "third").result("c-1", ToolStatus.OK, "second");

            List<Map<String, Object>> openAi = ContextRenderer.render(log.input(), ContextFormat.OPENAI).messages();
            List<Object> called = new ArrayList<>();
            List<List<Object>> answered = new ArrayList<>();
            for (Map<String, Object> m : openAi) {
                if (m.get("tool_calls") instanceof List<?> calls) {
                    calls.forEach(c -> called.add(((Map<?, ?>) c).get("id")));
                }
                if ("tool".equals(m.get("role"))) {
                    answered.add(List.of(m.get("tool_call_id"), m.get("content")));
                }
            }
            assertThat(called).containsExactly("c-1", "c-1_2", "c-1_2_2");
            assertThat(answered).containsExactly(List.of("c-1", "first"), List.of("c-1_2", "second"), List.of("c-1_2_2", "third"));

            List<Object> used = new ArrayList<>();
            List<List<Object>> results = new ArrayList<>();
            for (Map<String, Object> m : ContextRenderer.render(log.input(), ContextFormat.ANTHROPIC).messages()) {
                if (m.get("content") instanceof List<?>) {
                    for (Map<String, Object> block : blocks(m)) {
                        if ("tool_use".equals(block.get("type"))) {
                            used.add(block.get("id"));
                        } else if ("tool_result".equals(block.get("type"))) {
                            results.add(List.of(block.get("tool_use_id"), block.get("content")));
                        }
                    }
                }
            }
            assertThat(used).as("tool_use ids must be unique").containsExactly("c-1", "c-1_2", "c-1_2_2");
            assertThat(results).containsExactly(List.of("c-1", "first"), List.of("c-1_2", "second"), List.of("c-1_2_2", "third"));
        }

        /**
         * Anthropic refuses a tool_use id other than {@code ^[a-zA-Z0-9_-]+$}, OpenAI a tool call id over 40 characters;
         * Tether takes any call id up to 128 characters (a Kimi model's {@code functions.read_file:0}, an OpenAI
         * Responses item id {@code fc_...} of 53).
         */
        @Test
        void givenCallIdsAProviderRefuses_whenRendered_thenEachIsRenderedUnderAnIdBothTake_stableAndWithItsResult() {
            String colons = "functions.read_file:0";
            String tooLong = "fc_" + "0123456789".repeat(5);
            var log = new SessionFixture().user("go").assistant("", call(colons), call(tooLong), call("call_ok-1"))
                    .result(colons, ToolStatus.OK, "one").result(tooLong, ToolStatus.OK, "two").result("call_ok-1", ToolStatus.OK, "three")
                    .user("again").assistant("", call("functions.read_file:1"));

            for (ContextFormat format : ContextFormat.values()) {
                List<List<Object>> calls = callsAndResults(ContextRenderer.render(log.input(), format));
                assertThat(calls).as(format.name()).hasSize(4).allSatisfy(pair ->
                        assertThat((String) pair.get(0)).matches("[A-Za-z0-9_-]{1,40}"));
                assertThat(calls.stream().map(pair -> pair.get(0)).distinct()).hasSize(4);
                assertThat(calls).extracting(pair -> pair.get(1)).containsExactly("one", "two", "three", CANCELLED);
                assertThat(calls.get(2).get(0)).as("an id both take is kept").isEqualTo("call_ok-1");
                assertThat((String) calls.get(0).get(0)).startsWith("functions_read_file_0_");

                List<List<Object>> earlier = callsAndResults(ContextRenderer.render(log.inputAt(6), format));
                assertThat(earlier).as("the same id in every context").isEqualTo(calls.subList(0, 3));
            }
        }

        @Test
        void givenAReusedCallIdOf39Characters_whenRendered_thenItsRenamingStaysWithin40() {
            String id = "c".repeat(39);
            var log = new SessionFixture().user("go").assistant("", call(id)).result(id, ToolStatus.OK, "first")
                    .user("again").assistant("", call(id)).result(id, ToolStatus.OK, "second");

            for (ContextFormat format : ContextFormat.values()) {
                assertThat(callsAndResults(ContextRenderer.render(log.input(), format))).as(format.name())
                        .containsExactly(List.of(id, "first"), List.of("c".repeat(38) + "_2", "second"));
            }
        }

        @Test
        void givenCallWithoutResult_whenRenderedForAnthropic_thenToolResultIsError() {
            var log = new SessionFixture().user("go").assistant("Reading.", call("c-1"));

            ModelContext context = ContextRenderer.render(log.input(), ContextFormat.ANTHROPIC);

            int assistant = indexOfRole(context, "assistant");
            assertThat(blocks(context.messages().get(assistant + 1)).get(0)).isEqualTo(Map.of(
                    "type", "tool_result", "tool_use_id", "c-1", "content", CANCELLED, "is_error", true));
        }

        @Test
        void givenCallsWithResults_whenRenderedForOpenAi_thenToolCallsAndResultsInCallOrder() {
            var log = new SessionFixture().user("go").assistant("", call("c-1"), call("c-2"))
                    .result("c-2", ToolStatus.OK, "two").result("c-1", ToolStatus.OK, "one");

            ModelContext context = ContextRenderer.render(log.input(), ContextFormat.OPENAI);

            int assistant = indexOfRole(context, "assistant");
            assertThat(json(context.messages().get(assistant))).isEqualTo("{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
                    + "{\"id\":\"c-1\",\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"c-1.txt\\\"}\"}},"
                    + "{\"id\":\"c-2\",\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"c-2.txt\\\"}\"}}]}");
            assertThat(contents(context).subList(assistant + 1, assistant + 3)).containsExactly("one", "two");
        }

        @Test
        void givenResultAfterOtherEvents_whenRendered_thenResultFollowsItsAssistantMessage() {
            var log = new SessionFixture().user("go").assistant("Reading.", call("c-1"))
                    .user("also check the logs")
                    .append(new PlanUpdated(List.of(new PlanItem("Read", PlanItemStatus.IN_PROGRESS))))
                    .result("c-1", ToolStatus.OK, "file text");

            ModelContext openAi = ContextRenderer.render(log.input(), ContextFormat.OPENAI);
            ModelContext anthropic = ContextRenderer.render(log.input(), ContextFormat.ANTHROPIC);

            int assistant = indexOfRole(openAi, "assistant");
            assertThat(openAi.messages().get(assistant + 1)).containsEntry("role", "tool").containsEntry("content", "file text");
            assertThat(contents(openAi).get(assistant + 2)).isEqualTo("also check the logs");
            List<Map<String, Object>> afterToolUse = blocks(anthropic.messages().get(indexOfRole(anthropic, "assistant") + 1));
            assertThat(afterToolUse.get(0)).containsEntry("type", "tool_result").containsEntry("content", "file text")
                    .containsEntry("is_error", false);
            assertThat(afterToolUse.get(1)).containsEntry("text", "also check the logs");
        }

        @Test
        void givenErrorAndUnknownResults_whenRendered_thenContentSaysSoAndAnthropicMarksThemErrors() {
            var log = new SessionFixture().user("go").assistant("", call("c-1"), call("c-2"))
                    .result("c-1", ToolStatus.ERROR, "denied by approver: too risky")
                    .result("c-2", ToolStatus.UNKNOWN, "");

            ModelContext openAi = ContextRenderer.render(log.input(), ContextFormat.OPENAI);
            ModelContext anthropic = ContextRenderer.render(log.input(), ContextFormat.ANTHROPIC);

            int assistant = indexOfRole(openAi, "assistant");
            assertThat(contents(openAi).subList(assistant + 1, assistant + 3)).containsExactly(
                    "{\"error\":\"denied by approver: too risky\",\"status\":\"ERROR\"}",
                    "{\"error\":\"\",\"status\":\"UNKNOWN\"}");
            assertThat(blocks(anthropic.messages().get(indexOfRole(anthropic, "assistant") + 1)))
                    .filteredOn(block -> "tool_result".equals(block.get("type")))
                    .extracting(block -> block.get("is_error")).containsExactly(true, true);
        }

        /** A command that printed nothing: Anthropic refuses a tool_result with empty content, and whitespace-only text. */
        @Test
        void givenOkResultsWithNoOutput_whenRendered_thenTheySaySo_andAnthropicDoesNotMarkThemErrors() {
            var log = new SessionFixture().user("go").assistant("", call("c-1"), call("c-2"))
                    .result("c-1", ToolStatus.OK, "").result("c-2", ToolStatus.OK, " \n");

            for (ContextFormat format : ContextFormat.values()) {
                assertThat(callsAndResults(ContextRenderer.render(log.input(), format))).as(format.name())
                        .containsExactly(List.of("c-1", "(no output)"), List.of("c-2", "(no output)"));
            }
            ModelContext anthropic = ContextRenderer.render(log.input(), ContextFormat.ANTHROPIC);
            assertThat(blocks(anthropic.messages().get(indexOfRole(anthropic, "assistant") + 1)))
                    .filteredOn(block -> "tool_result".equals(block.get("type")))
                    .extracting(block -> block.get("is_error")).containsExactly(false, false);
        }

        @Test
        void givenCancelledResult_whenRendered_thenItRendersExactlyAsTheStandInCancellation() {
            var standIn = new SessionFixture().user("go").assistant("Reading.", call("c-1")).interrupted("", "user");
            var cancelled = new SessionFixture().user("go").assistant("Reading.", call("c-1")).interrupted("", "user")
                    .result("c-1", ToolStatus.CANCELLED, "the user stopped it");

            for (ContextFormat format : ContextFormat.values()) {
                ModelContext withStandIn = ContextRenderer.render(standIn.input(), format);
                ModelContext withResult = ContextRenderer.render(cancelled.input(), format);

                assertThat(json(stablePrefix(withResult))).isEqualTo(json(stablePrefix(withStandIn)));
                assertThat(withResult.stablePrefixSize()).isEqualTo(withStandIn.stablePrefixSize());
            }
        }

        @Test
        void givenCallInFlight_whenRendered_thenTailStartsAtItsAssistantMessage() {
            var log = new SessionFixture().user("go").assistant("Reading.", call("c-1")).user("hurry up");

            ModelContext openAi = ContextRenderer.render(log.input(), ContextFormat.OPENAI);
            ModelContext anthropic = ContextRenderer.render(log.input(), ContextFormat.ANTHROPIC);

            assertThat(openAi.stablePrefixSize()).isEqualTo(indexOfRole(openAi, "assistant"));
            assertThat(anthropic.stablePrefixSize()).isEqualTo(indexOfRole(anthropic, "assistant"));
        }

        @Test
        void givenResultOfACompactedCall_whenRendered_thenItIsANoteNotAToolMessage() {
            var log = new SessionFixture().user("go").assistant("Reading.", call("c-1"))
                    .append(new ContextCompacted(3, "The model read a file.", null, List.of()))
                    .result("c-1", ToolStatus.OK, "file text");

            ModelContext context = ContextRenderer.render(log.input(), ContextFormat.OPENAI);

            assertThat(context.messages()).noneMatch(message -> "tool".equals(message.get("role")));
            assertThat(contents(context)).contains("[result of tool call c-1]\nfile text");
        }

        @Test
        void givenArgumentsNotAJsonObject_whenRenderedForAnthropic_thenInputHoldsThemRaw() {
            var log = new SessionFixture().user("go").assistant("",
                    new ToolCall("c-1", "t", "[1,2]"),
                    new ToolCall("c-2", "t", "{not json"),
                    new ToolCall("c-3", "t", "{} {}"),
                    new ToolCall("c-4", "t", "{\"b\":1.50,\"a\":[{\"x\":null}]}"));

            ModelContext context = ContextRenderer.render(log.input(), ContextFormat.ANTHROPIC);

            List<Object> inputs = blocks(context.messages().get(indexOfRole(context, "assistant"))).stream()
                    .map(block -> block.get("input")).toList();
            assertThat(inputs.subList(0, 3)).containsExactly(Map.of("_raw", "[1,2]"), Map.of("_raw", "{not json"), Map.of("_raw", "{} {}"));
            assertThat(json(inputs.get(3))).isEqualTo("{\"b\":1.50,\"a\":[{\"x\":null}]}");
            assertThat(((Map<?, ?>) inputs.get(3)).get("b")).isEqualTo(new BigDecimal("1.50"));
        }
    }

    @Nested
    class Interruptions {

        @Test
        void givenInterruptedTurn_whenRendered_thenPartialTextKeptAndMarked() {
            var log = new SessionFixture().user("go").interrupted("I was about to", "user pressed stop");

            ModelContext openAi = ContextRenderer.render(log.input(), ContextFormat.OPENAI);
            ModelContext anthropic = ContextRenderer.render(log.input(), ContextFormat.ANTHROPIC);

            String marked = "I was about to\n[interrupted: user pressed stop]";
            assertThat(openAi.messages()).contains(Map.of("role", "assistant", "content", marked));
            assertThat(anthropic.messages()).contains(Map.of("role", "assistant", "content", List.of(Map.of("type", "text", "text", marked))));
        }

        @Test
        void givenInterruptionWithoutTextOrReason_whenRendered_thenOnlyTheMarker() {
            var log = new SessionFixture().user("go").interrupted("", "");

            ModelContext context = ContextRenderer.render(log.input(), ContextFormat.OPENAI);

            assertThat(context.messages()).contains(Map.of("role", "assistant", "content", "[interrupted]"));
        }

        @Test
        void givenCallOfInterruptedTurn_whenRendered_thenItIsCancelledAndStable() {
            var log = new SessionFixture().user("go").assistant("Reading.", call("c-1")).interrupted("", "user");

            ModelContext context = ContextRenderer.render(log.input(), ContextFormat.OPENAI);

            int assistant = indexOfRole(context, "assistant");
            assertThat(context.messages().get(assistant + 1)).containsEntry("content", CANCELLED);
            assertThat(context.stablePrefixSize()).isEqualTo(context.messages().size() - 1);
        }

        @Test
        void givenInterruptionAfterALaterAssistantMessage_whenRendered_thenEarlierCallStaysInFlight() {
            var log = new SessionFixture().user("go").assistant("", call("c-1")).assistant("Still thinking.").interrupted("", "user");

            ModelContext context = ContextRenderer.render(log.input(), ContextFormat.OPENAI);

            assertThat(context.stablePrefixSize()).isEqualTo(indexOfRole(context, "assistant"));
        }
    }

    @Nested
    class Content {

        @Test
        void givenOffloadedContent_whenRendered_thenPreviewAndMarkerNameTheArtifact() {
            var log = new SessionFixture()
                    .append(new UserMessage("The first lines", BLOB))
                    .append(new AssistantMessage("The first lines", BLOB, List.of(call("c-1")), null))
                    .append(new ToolResult("c-1", "k", ToolStatus.OK, "The first lines", BLOB));

            ModelContext context = ContextRenderer.render(log.input(), ContextFormat.OPENAI);

            String shown = "The first lines\n[full content: blob://sha256/" + "ab".repeat(32) + ", 123456 bytes]";
            assertThat(contents(context)).containsSequence(shown, shown, shown);
        }

        @Test
        void givenNoteEvents_whenRendered_thenEachIsAUserNote() {
            var log = new SessionFixture()
                    .append(new PlanUpdated(List.of(new PlanItem("Read the code", PlanItemStatus.DONE), new PlanItem("Fix it", null))))
                    .append(new StepCompleted(3, "tests pass", true, "mvn test: 12 passed"))
                    .append(new StepCompleted(4, "", false, null))
                    .append(new SessionResumed(ResumeReason.CRASH, 7, "call c-9 was re-run"))
                    .append(new SessionMigrated("h-1", "h-2"))
                    .append(new SubagentResult("s-2", "found the bug"))
                    .append(new SessionClosed("done"));

            ModelContext context = ContextRenderer.render(log.input(), ContextFormat.OPENAI);

            assertThat(contents(context).subList(3, 10)).containsExactly(
                    "[plan]\n1. Read the code (DONE)\n2. Fix it (PENDING)",
                    "[step 3 completed, verified]\ntests pass\nevidence: mvn test: 12 passed",
                    "[step 4 completed, unverified]",
                    "[session resumed after CRASH]\ncall c-9 was re-run",
                    "[session migrated from harness h-1 to h-2]",
                    "[subagent s-2 finished]\nfound the bug",
                    "[session closed]\ndone");
        }

        @Test
        void givenARetriedUnknownOutcome_whenRendered_thenTheDecisionAndTheNewResultAreNotes() {
            var log = new SessionFixture().user("go").assistant("Fetching.", call("c-1"))
                    .result("c-1", ToolStatus.UNKNOWN, "executor crashed mid-call")
                    .append(new ToolOutcomeResolved("c-1", OutcomeResolution.RETRY, "alice", "the server saw nothing"))
                    .result("c-1", ToolStatus.OK, "page text");

            ModelContext context = ContextRenderer.render(log.input(), ContextFormat.OPENAI);

            assertThat(contents(context)).containsSubsequence(
                    "[tool call c-1: a human had it run again; its new result follows]\nthe server saw nothing",
                    "[result of tool call c-1]\npage text");
        }

        @Test
        void givenCallsRenderedUnderAnotherId_whenAHumanResolvesThemAndTheyAreRetried_thenTheNotesNameThemAsRendered() {
            // an id a provider refuses, and a fork's own call reusing its parent's id
            var log = new SessionFixture().user("go").assistant("Fetching.", call("functions.fetch:0"))
                    .result("functions.fetch:0", ToolStatus.UNKNOWN, "executor crashed mid-call")
                    .append(new ToolOutcomeResolved("functions.fetch:0", OutcomeResolution.RETRY, "alice", ""))
                    .result("functions.fetch:0", ToolStatus.OK, "page text")
                    .assistant("Reading.", call("c-1")).result("c-1", ToolStatus.OK, "parent's")
                    .user("again").assistant("Reading again.", call("c-1")).result("c-1", ToolStatus.UNKNOWN, "lost")
                    .append(new ToolOutcomeResolved("c-1", OutcomeResolution.MARK_DONE, "bob", ""));

            ModelContext context = ContextRenderer.render(log.input(), ContextFormat.OPENAI);

            List<List<Object>> calls = callsAndResults(context);
            String fetch = (String) calls.get(0).get(0);
            assertThat(fetch).isNotEqualTo("functions.fetch:0");
            assertThat(calls.get(2).get(0)).isEqualTo("c-1_2");
            assertThat(contents(context)).containsSubsequence(
                    "[tool call " + fetch + ": a human had it run again; its new result follows]",
                    "[result of tool call " + fetch + "]\npage text",
                    "[tool call c-1_2: a human confirmed it took effect]");
        }

        @Test
        void givenBookkeepingEvents_whenRendered_thenTheyAreLeftOut() {
            var log = new SessionFixture().user("go")
                    .append(new SessionClaimed("worker-1", 2, "h-1"))
                    .append(new ApprovalRequested("c-1", "write_file", "write a.txt", null))
                    .append(new ApprovalGranted("c-1", ApprovalScope.ONCE, "write_file", null, "alice", ""))
                    .append(new ToolCallAuthorized("c-1", AuthorizationBasis.POLICY))
                    .append(new UnknownEvent("from_the_future"));

            ModelContext context = ContextRenderer.render(log.input(), ContextFormat.OPENAI);

            assertThat(contents(context).subList(3, context.messages().size() - 1)).containsExactly("go");
        }

        @Test
        void givenFrameworkState_whenRenderedInBothFormats_thenNothingOfItShows_andOnlyTheVolatileTailMoves() {
            var ref = BlobRef.of("d".repeat(64), 90_000, "{\"v\":1,\"channel_values\":{\"secret_plan\"");
            var with = new SessionFixture().user("go").assistant("Reading.", call("c-1"))
                    .append(new dev.tether.core.event.FrameworkState("langgraph", "checkpoint", "[\"\",\"cp-1\"]",
                            "{\"v\":1,\"channel_values\":{\"hidden_channel\":\"never shown\"}}"))
                    .append(new dev.tether.core.event.FrameworkState("langgraph", "writes", "[\"\",\"cp-1\",\"t-1\"]",
                            ref.preview(), ref));
            with.result("c-1", ToolStatus.OK, "file text");
            var without = new SessionFixture().user("go").assistant("Reading.", call("c-1"));
            without.result("c-1", ToolStatus.OK, "file text");

            for (ContextFormat format : ContextFormat.values()) {
                ModelContext withState = ContextRenderer.render(with.input(), format);
                ModelContext withoutState = ContextRenderer.render(without.input(), format);

                assertThat(withState.messages().subList(0, withState.messages().size() - 1)).as(format.name())
                        .isEqualTo(withoutState.messages().subList(0, withoutState.messages().size() - 1));
                assertThat(withState.stablePrefixSize()).as(format.name()).isEqualTo(withoutState.stablePrefixSize());
                assertThat(json(withState.messages())).as(format.name())
                        .doesNotContain("langgraph", "hidden_channel", "never shown", "secret_plan", "cp-1", "d".repeat(64));
                assertThat(json(withState.messages().get(withState.messages().size() - 1))).as("the tail's last seq")
                        .contains("last seq: 6");
            }
        }

        @Test
        void givenCompactionAmongTheEvents_whenRendered_thenItRendersNothing() {
            var log = new SessionFixture().user("go")
                    .append(new ContextCompacted(2, "a compaction the caller should have passed apart", null, List.of()));

            ModelContext context = ContextRenderer.render(asIfNeverCompacted(log), ContextFormat.OPENAI);

            assertThat(contents(context).subList(3, context.messages().size() - 1)).containsExactly("go");
        }

        @Test
        void givenEmptyMessages_whenRendered_thenTheyAreLeftOut() {
            var log = new SessionFixture().user("").assistant("").user("go");

            ModelContext context = ContextRenderer.render(log.input(), ContextFormat.OPENAI);

            assertThat(contents(context).subList(3, context.messages().size() - 1)).containsExactly("go");
        }

        @Test
        void givenVolatileValues_whenRendered_thenTheyAppearOnlyInTheTail() {
            var log = new SessionFixture().user("go").assistant("Done.").append(new StepCompleted(1, "read", true, null));

            for (ContextFormat format : ContextFormat.values()) {
                ModelContext context = ContextRenderer.render(log.input(), format);

                String prefix = json(stablePrefix(context));
                String tail = json(context.messages().subList(context.stablePrefixSize(), context.messages().size()));
                assertThat(prefix).doesNotContain("2026-03-01T", "event-", "[session state]", "last seq");
                assertThat(tail).contains("last seq: 4", "as of: 2026-03-01T09:00:28Z", "tokens used: 100 input, 10 output", "event event-4");
            }
        }

        @Test
        void givenTail_whenRenderedForOpenAi_thenItIsTheLastUserMessage() {
            var log = new SessionFixture().user("go");

            ModelContext context = ContextRenderer.render(log.input(), ContextFormat.OPENAI);

            assertThat(contents(context).get(context.messages().size() - 1)).isEqualTo(
                    "[session state]\nstatus: ACTIVE\nlast seq: 2\nstep: 0\ntokens used: 0 input, 0 output\n"
                            + "as of: 2026-03-01T09:00:14Z\nopen work:\n- event event-2");
            assertThat(context.stablePrefixSize()).isEqualTo(context.messages().size() - 1);
        }
    }

    @Nested
    class TurnsApart {

        @Test
        void givenOpenAi_whenAContextIsRendered_thenBetweenHeaderAndTailAreTheMessagesOfEachExchangeRenderedAlone() {
            // a call answered after the user spoke again, an interruption, a second result of an earlier call, and a call in flight
            var log = new SessionFixture().user("one").assistant("reading", call("c-1")).user("meanwhile").result("c-1", ToolStatus.OK, "r1")
                    .user("two").assistant("calling", call("c-2")).interrupted("half", "user")
                    .user("three").result("c-1", ToolStatus.OK, "r1 again").assistant("", call("c-3"));
            List<Event> events = log.input().events();
            ModelContext whole = ContextRenderer.render(log.input(), ContextFormat.OPENAI);

            var apart = new ArrayList<Map<String, Object>>();
            apart.addAll(ContextRenderer.turnMessages(events.subList(0, 4), ContextFormat.OPENAI));
            apart.addAll(ContextRenderer.turnMessages(events.subList(4, 7), ContextFormat.OPENAI));
            apart.addAll(ContextRenderer.turnMessages(events.subList(7, events.size()), ContextFormat.OPENAI));

            int header = 3; // the system prompt, the objective, the facts
            assertThat(whole.messages().subList(header, whole.messages().size() - 1)).isEqualTo(apart);
            assertThat(apart).hasSize(12);
        }

        @Test
        void givenAnthropic_whenTurnMessagesAreAskedFor_thenRefused() {
            var log = new SessionFixture().user("one").user("two");

            assertThatThrownBy(() -> ContextRenderer.turnMessages(log.input().events(), ContextFormat.ANTHROPIC))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("ANTHROPIC merges neighbouring turns");
        }
    }

    @Nested
    class AnthropicAlternation {

        @Test
        void givenConsecutiveSameRoleTurns_whenRendered_thenRolesAlternateStartingWithUser() {
            var log = new SessionFixture().user("one").user("two")
                    .append(new PlanUpdated(List.of()))
                    .assistant("a").interrupted("b", "user")
                    .assistant("", call("c-1")).result("c-1", ToolStatus.OK, "r")
                    .user("three").assistant("", call("c-2"));

            ModelContext context = ContextRenderer.render(log.input(), ContextFormat.ANTHROPIC);

            List<Object> roles = context.messages().stream().map(message -> message.get("role")).toList();
            assertThat(roles).containsExactly("user", "assistant", "user", "assistant", "user");
            assertThat(blocks(context.messages().get(2))).extracting(block -> block.get("type")).containsExactly("tool_result", "text");
        }

        @Test
        void givenLastStableMessageMayGrow_whenRendered_thenItIsPartOfTheTail() {
            var log = new SessionFixture().user("one").assistant("a");

            ModelContext before = ContextRenderer.render(log.input(), ContextFormat.ANTHROPIC);
            ModelContext after = ContextRenderer.render(log.assistant("b").input(), ContextFormat.ANTHROPIC);

            assertThat(before.stablePrefixSize()).isEqualTo(1);
            assertThat(json(after.messages().subList(0, 1))).isEqualTo(json(stablePrefix(before)));
            assertThat(texts(after.messages().get(1))).containsExactly("a", "b");
        }

        @Test
        void givenCallInFlightAfterAUserMessage_whenRendered_thenTheUserMessageStaysStable() {
            var log = new SessionFixture().user("one").assistant("", call("c-1"));

            ModelContext context = ContextRenderer.render(log.input(), ContextFormat.ANTHROPIC);

            assertThat(context.stablePrefixSize()).isEqualTo(1);
            assertThat(context.messages()).hasSize(3);
        }
    }

    @Test
    void givenStartEventAmongTheEvents_whenRendered_thenItRendersNothing() {
        var log = new SessionFixture().user("go");
        var input = new ContextInput(log.input().start(), null, log.input().facts(), log.events(), log.input().tail());

        ModelContext context = ContextRenderer.render(input, ContextFormat.OPENAI);

        assertThat(contents(context).subList(3, context.messages().size() - 1)).containsExactly("go");
    }

    @Test
    void givenNullFormat_whenRendered_thenRejected() {
        assertThatThrownBy(() -> ContextRenderer.render(new SessionFixture().input(), null)).isInstanceOf(NullPointerException.class);
    }

    /**
     * Anthropic refuses a text block that is empty or only whitespace ("text content blocks must contain non-whitespace
     * text"), and a model's reply of "\n\n" is common: such a message says nothing and is left out in both formats, once
     * in the log, it would fail every later context of the session.
     */
    @Nested
    class BlankTexts {

        @Test
        void givenAWhitespaceOnlyAssistantMessage_thenItIsLeftOut_andTheUserMessagesAroundItMergeForAnthropic() {
            var log = new SessionFixture().user("go").assistant("\n\n").user("and now?");

            ModelContext anthropic = ContextRenderer.render(log.input(), ContextFormat.ANTHROPIC);
            ModelContext openAi = ContextRenderer.render(log.input(), ContextFormat.OPENAI);

            assertThat(anthropic.messages()).hasSize(1);
            assertThat(texts(anthropic.messages().get(0))).containsSubsequence("go", "and now?").noneMatch(t -> ((String) t).isBlank());
            assertThat(contents(openAi)).containsSubsequence("go", "and now?").doesNotContain("\n\n");
            assertThat(openAi.messages()).noneMatch(m -> "assistant".equals(m.get("role")));
        }

        @Test
        void givenAWhitespaceOnlyUserMessageBetweenTwoAssistantTurns_thenItIsLeftOut() {
            var log = new SessionFixture().user("go").assistant("Done.").user(" ").assistant("Anything else?").user("no");

            ModelContext anthropic = ContextRenderer.render(log.input(), ContextFormat.ANTHROPIC);

            assertThat(anthropic.messages()).extracting(m -> m.get("role")).containsExactly("user", "assistant", "user");
            assertThat(texts(anthropic.messages().get(1))).containsExactly("Done.", "Anything else?");
            assertThat(anthropic.messages()).flatMap(ContextRendererTest::texts).noneMatch(t -> t instanceof String text && text.isBlank());
        }

        @Test
        void givenAWhitespaceOnlyTextBesideToolCalls_thenTheCallsStayWithoutIt() {
            var log = new SessionFixture().user("go").assistant(" \n", call("c-1")).result("c-1", ToolStatus.OK, "done");

            ModelContext anthropic = ContextRenderer.render(log.input(), ContextFormat.ANTHROPIC);
            ModelContext openAi = ContextRenderer.render(log.input(), ContextFormat.OPENAI);

            Map<String, Object> toolUse = anthropic.messages().get(1);
            assertThat(blocks(toolUse)).extracting(b -> b.get("type")).containsExactly("tool_use");
            assertThat(openAi.messages()).filteredOn(m -> "assistant".equals(m.get("role"))).singleElement()
                    .satisfies(m -> assertThat(m.get("content")).isNull());
        }

        @Test
        void givenABlankObjective_asASessionStartedBeforeTheSequencerRefusedIt_thenTheHeaderSaysSoInItsPlace() {
            var log = new SessionFixture().user("go");
            ContextInput input = log.input();
            var start = new SessionStarted(" ", "sys", "model-1", "h-1", ToolMode.WRITE, List.of(), null, null);

            ModelContext anthropic = ContextRenderer.render(new ContextInput(start, null, input.facts(), input.events(), input.tail()),
                    ContextFormat.ANTHROPIC);

            assertThat(texts(anthropic.messages().get(0))).startsWith(Conversation.NO_OBJECTIVE).noneMatch(t -> ((String) t).isBlank());
        }
    }

    /** Each tool call's id and the content of its result, in call order, in either format. */
    private static List<List<Object>> callsAndResults(ModelContext context) {
        var ids = new ArrayList<Object>();
        var results = new java.util.HashMap<Object, Object>();
        for (Map<String, Object> m : context.messages()) {
            if (m.get("tool_calls") instanceof List<?> calls) {
                calls.forEach(c -> ids.add(((Map<?, ?>) c).get("id")));
            } else if ("tool".equals(m.get("role"))) {
                results.put(m.get("tool_call_id"), m.get("content"));
            } else if (context.format() == ContextFormat.ANTHROPIC) {
                for (Map<String, Object> block : blocks(m)) {
                    if ("tool_use".equals(block.get("type"))) {
                        ids.add(block.get("id"));
                    } else if ("tool_result".equals(block.get("type"))) {
                        results.put(block.get("tool_use_id"), block.get("content"));
                    }
                }
            }
        }
        return ids.stream().map(id -> List.of(id, results.get(id))).toList();
    }

    /** The input with every event after the start and no compaction passed apart. */
    private static ContextInput asIfNeverCompacted(SessionFixture log) {
        ContextInput input = log.input();
        return new ContextInput(input.start(), null, input.facts(), log.events().subList(1, log.events().size()), input.tail());
    }

    private static List<Map<String, Object>> stablePrefix(ModelContext context) {
        return context.messages().subList(0, context.stablePrefixSize());
    }

    private static int indexOfRole(ModelContext context, String role) {
        for (int i = 0; i < context.messages().size(); i++) {
            if (role.equals(context.messages().get(i).get("role"))) {
                return i;
            }
        }
        throw new AssertionError("no " + role + " message");
    }

    /** The OpenAI messages' contents, as strings. */
    private static List<String> contents(ModelContext context) {
        return context.messages().stream().map(message -> String.valueOf(message.get("content"))).toList();
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> blocks(Map<String, Object> anthropicMessage) {
        return (List<Map<String, Object>>) anthropicMessage.get("content");
    }

    private static List<Object> texts(Map<String, Object> anthropicMessage) {
        return blocks(anthropicMessage).stream().map(block -> block.get("text")).toList();
    }

    private static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new AssertionError(e);
        }
    }
}
