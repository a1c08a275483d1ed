package dev.tether.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Renders {@code docs/RELIABILITY.md} from every published part, {@code reliability/results/*.json} (see {@link Results}), and
 * the hand-written template {@code reliability/RELIABILITY.template.md}: its {@code {{summary}}} becomes the headline
 * figures, {@code {{parts}}} one section per part. Usage: {@code ReliabilityDoc [repository root]}.
 */
public final class ReliabilityDoc {

    /** The headline figures the issue asks for, looked up by name in every part's figures. */
    static final List<String> HEADLINE = List.of("sessions", "events", "faults injected", "lost", "duplicated effects", "fuzz cases",
            "5xx", "cross-tenant successes", "secrets found");

    /** Failures listed per part; the rest are counted (the JSON has them all). */
    static final int MAX_FAILURES = 40;

    private static final ObjectMapper JSON = new ObjectMapper();

    private ReliabilityDoc() {}

    public static void main(String[] args) throws IOException {
        Path root = Path.of(args.length > 0 ? args[0] : System.getProperty("tether-test.root", ".")).toAbsolutePath().normalize();
        Path out = render(root);
        System.out.println("wrote " + root.relativize(out));
    }

    static Path render(Path root) throws IOException {
        List<JsonNode> parts = new ArrayList<>();
        Path dir = Results.publishedDir(root);
        if (Files.isDirectory(dir)) {
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".json")).sorted(Comparator.comparing(ReliabilityDoc::order)).toList()) {
                    parts.add(JSON.readTree(f.toFile()));
                }
            }
        }
        String template = Files.readString(root.resolve("reliability/RELIABILITY.template.md"));
        String doc = template.replace("{{summary}}", summary(parts)).replace("{{parts}}", sections(parts));
        Path out = root.resolve("docs/RELIABILITY.md");
        Files.createDirectories(out.getParent());
        Files.writeString(out, doc);
        return out;
    }

    /** The full chaos run first (its figures head the summary), then the reduced one, then the others by name. */
    private static String order(Path p) {
        String name = p.getFileName().toString();
        return (name.equals("chaos-full.json") ? "0" : name.equals("chaos-reduced.json") ? "1" : "2") + name;
    }

    private static String summary(List<JsonNode> parts) {
        var b = new StringBuilder("| figure | value | from |\n|---|---:|---|\n");
        for (String name : HEADLINE) {
            String value = "not measured";
            String from = "—";
            for (JsonNode part : parts) {
                JsonNode v = find(part.path("figures"), name);
                if (v != null) {
                    value = v.isTextual() ? v.asText() : v.toString();
                    from = part.path("part").asText();
                    break;
                }
            }
            b.append("| ").append(name).append(" | ").append(value).append(" | ").append(from).append(" |\n");
        }
        int failed = 0;
        for (JsonNode part : parts) {
            failed += part.path("failures").size();
        }
        b.append("\nParts run: ").append(parts.isEmpty() ? "none" : String.join(", ", parts.stream().map(p -> p.path("part").asText()).toList()))
                .append(". Failures: ").append(failed).append(".\n");
        return b.toString();
    }

    private static JsonNode find(JsonNode figures, String name) {
        var fields = figures.fields();
        while (fields.hasNext()) {
            var e = fields.next();
            if (e.getKey().toLowerCase(Locale.ROOT).equals(name)) {
                return e.getValue();
            }
        }
        return null;
    }

    private static String sections(List<JsonNode> parts) {
        if (parts.isEmpty()) {
            return "No results yet: run the command above.\n";
        }
        var b = new StringBuilder();
        for (JsonNode part : parts) {
            b.append("### ").append(part.path("part").asText()).append("\n\n");
            b.append("Command: `").append(part.path("command").asText()).append("`\n\n");
            b.append("| figure | value |\n|---|---:|\n");
            part.path("figures").fields().forEachRemaining(e -> b.append("| ").append(e.getKey()).append(" | ")
                    .append(e.getValue().isTextual() ? e.getValue().asText().replace("|", "\\|") : e.getValue().toString()).append(" |\n"));
            JsonNode failures = part.path("failures");
            b.append("\nFailures: ").append(failures.isEmpty() ? "none.\n" : failures.size() + "\n\n");
            for (int i = 0; i < Math.min(failures.size(), MAX_FAILURES); i++) {
                String f = failures.get(i).asText().replace("\n", " ");
                b.append("- ").append(f.length() > 400 ? f.substring(0, 400) + "…" : f).append("\n");
            }
            if (failures.size() > MAX_FAILURES) {
                b.append("- … and ").append(failures.size() - MAX_FAILURES).append(" more (all of them in the part's JSON)\n");
            }
            b.append("\n");
        }
        return b.toString();
    }
}
