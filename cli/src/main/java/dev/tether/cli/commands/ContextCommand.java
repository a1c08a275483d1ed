package dev.tether.cli.commands;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.cli.Converters;
import dev.tether.cli.Role;
import dev.tether.cli.TetherCli;
import dev.tether.cli.output.Output;
import dev.tether.client.ContextFormat;
import dev.tether.client.ContextQuery;
import dev.tether.client.ModelContext;
import dev.tether.client.ReadAt;
import dev.tether.client.TetherClient;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code tether context}: the model context the projector-service renders for a session. */
@Command(name = "context", mixinStandardHelpOptions = true,
        description = {"The session's model context, ready for the provider: system prompt, pinned objective, facts, the events "
                + "since the last compaction, dangling calls closed, volatile values last.",
                "By default the messages, one by one, with where the byte-stable (cacheable) prefix ends; --json prints the "
                        + "projector's answer as it is, to send on."})
public final class ContextCommand implements Callable<Integer> {

    @ParentCommand
    TetherCli cli;

    @Parameters(paramLabel = "<sessionId>", converter = Converters.SessionId.class)
    String sessionId;

    @Option(names = "--format", paramLabel = "openai|anthropic", defaultValue = "openai",
            description = "the provider's message format (default: ${DEFAULT-VALUE})")
    ContextFormat format;

    @ArgGroup(exclusive = true)
    At at;

    static final class At {
        @Option(names = "--at-seq", paramLabel = "<seq>", converter = Converters.Seq.class,
                description = "the context as it was right after this seq (time travel)")
        Long atSeq;

        @Option(names = "--min-seq", paramLabel = "<seq>", converter = Converters.Seq.class,
                description = "the latest context, once the projector has folded this seq (read your own writes)")
        Long minSeq;
    }

    @Option(names = "--max-tokens", paramLabel = "<tokens>", converter = Converters.Positive.class,
            description = "leave the oldest exchanges after the compaction point out to fit this many tokens")
    Integer maxTokens;

    @Override
    public Integer call() {
        Output out = cli.output();
        ContextQuery query = ContextQuery.of(format);
        if (at != null) {
            query = query.at(at.atSeq != null ? ReadAt.seq(at.atSeq) : ReadAt.atLeast(at.minSeq));
        }
        if (maxTokens != null) {
            query = query.withMaxTokens(maxTokens);
        }
        ModelContext context;
        try (TetherClient tether = cli.client(Role.AGENT)) {
            context = tether.context(sessionId, query).orElseThrow(() -> SessionsCommand.notFound(sessionId));
        }
        if (out.json()) {
            out.print(Output.parse(context.json()));
            return 0;
        }
        out.line(String.format(Locale.ROOT, "%s context of %s at seq %d: %d tokens (%s) of a %d-token window%s%s", context.format(), sessionId,
                context.atSeq(), context.tokens(), context.tokenizer(), context.window(),
                context.compactionAdvised() ? ", compaction advised" : "",
                context.droppedEvents() > 0 ? ", " + context.droppedEvents() + " events left out to fit" : ""));
        context.system().ifPresent(system -> {
            out.line("");
            out.line("[system]");
            indent(out, system);
        });
        List<JsonNode> messages = context.messages();
        for (int i = 0; i < messages.size(); i++) {
            out.line("");
            JsonNode m = messages.get(i);
            String role = m.path("role").asText();
            out.line("[" + (i + 1) + "] " + role + (m.hasNonNull("tool_call_id") ? " (" + m.get("tool_call_id").asText() + ")" : ""));
            body(out, m);
            if (i + 1 == context.stablePrefixSize() && i + 1 < messages.size()) {
                out.line("");
                out.line("---- " + (context.stablePrefixSize() == 1 ? "the message above stays" : "the " + context.stablePrefixSize()
                        + " messages above stay") + " byte-identical as the session goes on (cacheable)");
            }
        }
        return 0;
    }

    /** A message's content in either format: text, tool calls (OpenAI) or content blocks (Anthropic). */
    private static void body(Output out, JsonNode m) {
        JsonNode content = m.get("content");
        if (content != null && content.isTextual()) {
            indent(out, content.asText());
        } else if (content != null && content.isArray()) {
            boolean first = true;
            for (JsonNode block : content) {
                if (!first) {
                    out.line("    ·");
                }
                first = false;
                switch (block.path("type").asText()) {
                    case "text" -> indent(out, block.path("text").asText());
                    case "tool_use" -> indent(out, "-> " + block.path("id").asText() + " " + block.path("name").asText() + " "
                            + Output.compact(block.path("input")));
                    case "tool_result" -> indent(out, "<- " + block.path("tool_use_id").asText()
                            + (block.path("is_error").asBoolean() ? " (error)" : "") + ": " + text(block.get("content")));
                    default -> indent(out, Output.compact(block));
                }
            }
        }
        for (JsonNode call : m.path("tool_calls")) {
            indent(out, "-> " + call.path("id").asText() + " " + call.path("function").path("name").asText() + " "
                    + call.path("function").path("arguments").asText());
        }
    }

    private static String text(JsonNode content) {
        return content == null ? "" : content.isTextual() ? content.asText() : Output.compact(content);
    }

    private static void indent(Output out, String text) {
        for (String line : text.split("\n", -1)) {
            out.line(("    " + line).stripTrailing());
        }
    }
}
