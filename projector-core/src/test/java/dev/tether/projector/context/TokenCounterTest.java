package dev.tether.projector.context;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    void givenContextCountedBefore_whenCountedAgainInTheSameScope_thenOnlyItsNewMessageIsEncoded() {
        var counter = new TokenCounter();
        var earlier = new ModelContext(ContextFormat.ANTHROPIC, "You are careful.", List.of(user("rename Foo"), user("and Bar")), 0);
        int first = counter.memo("acme").count(earlier);
        assertThat(first).isEqualTo(COUNTER.count(earlier));
        assertThat(counter.encoded()).as("the system prompt and two messages").isEqualTo(3);

        assertThat(counter.memo("acme").count(earlier)).as("another request").isEqualTo(first);
        assertThat(counter.encoded()).as("nothing new").isEqualTo(3);

        var later = new ModelContext(ContextFormat.ANTHROPIC, "You are careful.", List.of(user("rename Foo"), user("and Bar"), user("now")), 0);
        assertThat(counter.memo("acme").count(later)).isEqualTo(COUNTER.count(later)).isGreaterThan(first);
        assertThat(counter.encoded()).as("the new message alone").isEqualTo(4);
    }

    @Test
    void givenContextCountedInOneScope_whenCountedInAnother_thenEncodedAgain_soNoTenantFindsAnothersCounts() {
        var counter = new TokenCounter();
        var context = new ModelContext(ContextFormat.OPENAI, null, List.of(user("the launch code is 0000")), 0);
        int acme = counter.memo("acme").count(context);

        assertThat(counter.memo("globex").count(context)).isEqualTo(acme);
        assertThat(counter.encoded()).isEqualTo(2);
        assertThat(counter.count(context)).as("a plain count keeps nothing and finds nothing").isEqualTo(acme);
        assertThat(counter.encoded()).isEqualTo(3);
    }

    @Test
    void givenCounterKeepingNoCounts_whenCountedTwice_thenEncodedTwice_withTheSameCount() {
        var counter = new TokenCounter(0);
        var context = new ModelContext(ContextFormat.OPENAI, null, List.of(user("go"), user("stop")), 0);

        assertThat(counter.memo("acme").count(context)).isEqualTo(counter.memo("acme").count(context)).isEqualTo(COUNTER.count(context));
        assertThat(counter.encoded()).isEqualTo(4);
        assertThatThrownBy(() -> new TokenCounter(-1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keptCounts");
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

    private static Map<String, Object> user(String text) {
        return Map.of("role", "user", "content", text);
    }

    @Test
    void givenCounter_whenAskedItsName_thenItIsTheEncodingUsed() {
        assertThat(TokenCounter.NAME).isEqualTo(EncodingType.O200K_BASE.getName());
    }
}
