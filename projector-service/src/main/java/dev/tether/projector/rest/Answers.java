package dev.tether.projector.rest;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.core.event.Event;
import dev.tether.kit.service.openapi.ApiField;
import dev.tether.kit.service.openapi.ApiType;
import dev.tether.projector.domain.SessionOverview;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The projector's answers that {@link ProjectionResource} builds as JSON trees, for its OpenAPI document only
 * ({@link ProjectorApiDocument}). A field of type {@link Optional} may be absent; every other one is always there.
 */
final class Answers {

    private Answers() {}

    @ApiType(description = "The model context of a session (now or at atSeq) in a provider's format: the messages to send, "
            + "how many of them are a stable prefix, the token count and whether compaction is advised.")
    record ModelContext(@ApiField(values = {"openai", "anthropic"}) String format,
                        @ApiField(description = "anthropic only: the system prompt, sent apart from the messages") Optional<String> system,
                        @ApiField(description = "the provider's messages (role, content, tool calls and results), oldest first")
                        List<Map<String, JsonNode>> messages,
                        int stablePrefixSize, int tokens, String tokenizer, int window, boolean compactionAdvised,
                        @ApiField(description = "the seq the context is as of") long atSeq,
                        @ApiField(description = "how many events maxTokens made it leave out") Optional<Integer> droppedEvents) {}

    @ApiType(description = "The original events a summary through throughSeq is made from: never a previous summary, whose "
            + "seqs are listed in skippedSummaries; nextFromSeq when there are more.")
    record CompactionSource(List<Event> events, List<Long> skippedSummaries, long throughSeq, Optional<Long> nextFromSeq) {}

    @ApiType(description = "The events of a tool call's story: the event that asked for it, its authorization and its result.")
    record CallEvents(Event requestedBy, Optional<Event> authorizedBy, Optional<Event> result) {}

    @ApiType(description = "A page of the caller's tenant's sessions as the projection has them, most recently active first.")
    record SessionOverviews(List<SessionOverview> sessions,
                            @ApiField(description = "where the next page starts, <lastActivity>~<sessionId> of this page's last "
                                    + "session (pass it as after); absent on the last page") Optional<String> nextAfter) {}
}
