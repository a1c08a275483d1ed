package dev.tether.projector.context;

import static org.assertj.core.api.Assertions.assertThat;

import com.knuddels.jtokkit.api.EncodingType;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TokenCounterTest {

    private static final TokenCounter COUNTER = new TokenCounter();

    @Test
    void givenContext_whenCounted_thenCountIsPositive() {
        ModelContext context = ContextRenderer.render(new SessionFixture().user("go").input(), ContextFormat.OPENAI);

        assertThat(COUNTER.count(context)).isPositive();
    }

    @Test
    void givenMoreContent_whenCounted_thenCountGrows() {
        var log = new SessionFixture().user("go");
        int before = COUNTER.count(ContextRenderer.render(log.input(), ContextFormat.OPENAI));

        int after = COUNTER.count(ContextRenderer.render(log.user("Please also look at the integration tests.").input(), ContextFormat.OPENAI));

        assertThat(after).isGreaterThan(before);
    }

    @Test
    void givenSameContext_whenCountedAgainOrByAnotherCounter_thenSameCount() {
        ModelContext context = ContextRenderer.render(new SessionFixture().user("go").assistant("ok").input(), ContextFormat.ANTHROPIC);

        assertThat(COUNTER.count(context)).isEqualTo(COUNTER.count(context)).isEqualTo(new TokenCounter().count(context));
    }

    @Test
    void givenAnthropicContext_whenCounted_thenSystemPromptCounts() {
        var message = Map.<String, Object>of("role", "user", "content", List.of(Map.of("type", "text", "text", "hi")));
        var withoutSystem = new ModelContext(ContextFormat.ANTHROPIC, null, List.of(message), 0);
        var withSystem = new ModelContext(ContextFormat.ANTHROPIC, "You are a careful engineer.", List.of(message), 0);

        assertThat(COUNTER.count(withSystem)).isGreaterThan(COUNTER.count(withoutSystem));
    }

    @Test
    void givenSpecialTokenText_whenCounted_thenCountedAsOrdinaryText() {
        var message = Map.<String, Object>of("role", "user", "content", "<|endoftext|>");

        assertThat(COUNTER.count(new ModelContext(ContextFormat.OPENAI, null, List.of(message), 0))).isGreaterThan(1);
    }

    @Test
    void givenCounter_whenAskedItsName_thenItIsTheEncodingUsed() {
        assertThat(TokenCounter.NAME).isEqualTo(EncodingType.O200K_BASE.getName());
    }
}
