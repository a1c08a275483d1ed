package dev.tether.testing;

import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

/**
 * Checks of a service's OpenAPI document, the contract clients are generated from (docs/openapi/README.md): that it is
 * valid OpenAPI (swagger-parser, and every {@code $ref} resolves), that every body is typed, and that it is the document
 * committed under {@code docs/openapi/}. Used by {@link ServiceEndpointsContract}; stateless.
 */
public final class OpenApiDocuments {

    /** The system property that makes {@link #committedDifference} write the served document instead of failing. */
    public static final String UPDATE = "tether-test.openapi-update";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "patch", "head", "options", "trace");

    private OpenApiDocuments() {}

    /**
     * Every request body, and every 2xx and 4xx answer, that a client could not generate a type from: no body described
     * (a 204 excepted), or a JSON body whose schema is a string (such as {@code string/binary}), says nothing (no type,
     * no reference, no composition), or is an object with no properties, no {@code oneOf}/{@code anyOf}/{@code allOf}
     * and no typed additional properties. A body of another media type (bytes, a web page) may be a string.
     *
     * @return one line per untyped body, e.g. {@code POST /v1/sessions request application/json: string/binary}
     */
    public static List<String> untypedBodies(JsonNode document) {
        var found = new ArrayList<String>();
        document.path("paths").fields().forEachRemaining(path -> path.getValue().fields().forEachRemaining(op -> {
            if (!METHODS.contains(op.getKey())) {
                return;
            }
            String where = op.getKey().toUpperCase() + " " + path.getKey();
            JsonNode operation = op.getValue();
            if (operation.has("requestBody")) {
                checkBody(document, resolve(document, operation.get("requestBody")), where + " request", found);
            }
            operation.path("responses").fields().forEachRemaining(answer -> {
                String code = answer.getKey();
                if ((code.startsWith("2") && !code.equals("204")) || code.startsWith("4")) {
                    checkBody(document, resolve(document, answer.getValue()), where + " " + code, found);
                }
            });
        }));
        return found;
    }

    private static void checkBody(JsonNode document, JsonNode body, String where, List<String> found) {
        JsonNode content = body.path("content");
        if (!content.isObject() || content.isEmpty()) {
            found.add(where + ": no body described");
            return;
        }
        content.fields().forEachRemaining(media -> {
            if (!media.getKey().contains("json")) {
                return;
            }
            JsonNode schema = media.getValue().get("schema");
            String problem = schema == null ? "no schema" : untyped(resolve(document, schema));
            if (problem != null) {
                found.add(where + " " + media.getKey() + ": " + problem);
            }
        });
    }

    /** Why {@code schema} types nothing, or null if it does. */
    private static String untyped(JsonNode schema) {
        boolean composed = schema.has("oneOf") || schema.has("anyOf") || schema.has("allOf");
        Set<String> types = types(schema);
        if (types.contains("string")) {
            return "string" + (schema.has("format") ? "/" + schema.get("format").asText() : "");
        }
        if (types.isEmpty() && !composed) {
            return "a schema with no type";
        }
        boolean properties = schema.path("properties").isObject() && !schema.path("properties").isEmpty();
        boolean typedMap = schema.path("additionalProperties").isObject() && !schema.path("additionalProperties").isEmpty();
        if (types.contains("object") && !properties && !composed && !typedMap) {
            return "an object with no properties";
        }
        return null;
    }

    private static Set<String> types(JsonNode schema) {
        JsonNode type = schema.get("type");
        if (type == null) {
            return Set.of();
        }
        var types = new java.util.TreeSet<String>();
        if (type.isArray()) {
            type.forEach(t -> types.add(t.asText()));
        } else {
            types.add(type.asText());
        }
        return types;
    }

    /** Follows {@code $ref}s into the document's components. */
    private static JsonNode resolve(JsonNode document, JsonNode node) {
        JsonNode at = node;
        for (int hops = 0; at.has("$ref") && hops < 20; hops++) {
            at = document.at(at.get("$ref").asText().substring(1));
        }
        return at;
    }

    /**
     * What is wrong with the document as OpenAPI: swagger-parser's messages, and every {@code $ref} that names nothing.
     *
     * @return empty when it is valid
     */
    public static List<String> problems(JsonNode document) {
        var problems = new ArrayList<String>();
        var options = new ParseOptions();
        options.setResolve(true);
        SwaggerParseResult result = new OpenAPIV3Parser().readContents(document.toString(), null, options);
        if (result.getMessages() != null) {
            problems.addAll(result.getMessages());
        }
        if (result.getOpenAPI() == null) {
            problems.add("swagger-parser read no OpenAPI document");
        }
        if (!document.path("openapi").asText().startsWith("3.1")) {
            problems.add("openapi is " + document.path("openapi") + ", not 3.1");
        }
        danglingRefs(document, document, "", problems);
        return problems;
    }

    private static void danglingRefs(JsonNode document, JsonNode node, String at, List<String> problems) {
        if (node.isObject()) {
            JsonNode ref = node.get("$ref");
            if (ref != null && ref.isTextual() && ref.asText().startsWith("#/") && document.at(ref.asText().substring(1)).isMissingNode()) {
                problems.add(at + ": $ref " + ref.asText() + " names nothing");
            }
            node.fields().forEachRemaining(f -> danglingRefs(document, f.getValue(), at + "/" + f.getKey(), problems));
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                danglingRefs(document, node.get(i), at + "/" + i, problems);
            }
        }
    }

    /**
     * The document as it is committed: keys sorted at every level, two spaces of indentation, one element per line, a
     * final newline. Arrays keep their order (a {@code oneOf}, a {@code required} list, an {@code enum}).
     */
    public static String canonical(JsonNode document) {
        var printer = new DefaultPrettyPrinter()
                .withSeparators(Separators.createDefaultInstance().withObjectFieldValueSpacing(Separators.Spacing.AFTER))
                .withArrayIndenter(new DefaultIndenter("  ", "\n"))
                .withObjectIndenter(new DefaultIndenter("  ", "\n"));
        try {
            return JSON.writer(printer).writeValueAsString(sorted(document)) + "\n";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JsonNode sorted(JsonNode node) {
        if (node.isObject()) {
            var fields = new TreeMap<String, JsonNode>();
            node.fields().forEachRemaining(f -> fields.put(f.getKey(), sorted(f.getValue())));
            ObjectNode out = JSON.createObjectNode();
            fields.forEach(out::set);
            return out;
        }
        if (node.isArray()) {
            ArrayNode out = JSON.createArrayNode();
            node.forEach(e -> out.add(sorted(e)));
            return out;
        }
        return node;
    }

    /**
     * How the document {@code service} serves differs from the committed {@code docs/openapi/<service>.json}, or null
     * when they are the same JSON. The served document is always written to {@code target/openapi/<service>.json}; with
     * the system property {@value #UPDATE} true, it is also written over the committed one (and null returned).
     *
     * @param root the repository's root
     */
    public static String committedDifference(Path root, String service, JsonNode served) throws IOException {
        String text = canonical(served);
        Path written = Path.of("target", "openapi", service + ".json");
        Files.createDirectories(written.getParent());
        Files.writeString(written, text, StandardCharsets.UTF_8);
        Path committed = root.resolve("docs").resolve("openapi").resolve(service + ".json");
        if (Boolean.getBoolean(UPDATE)) {
            Files.createDirectories(committed.getParent());
            Files.writeString(committed, text, StandardCharsets.UTF_8);
            return null;
        }
        if (!Files.exists(committed)) {
            return "docs/openapi/" + service + ".json is not committed; " + regenerate(service);
        }
        JsonNode before = JSON.readTree(committed.toFile());
        if (before.equals(served)) {
            return null;
        }
        return "the OpenAPI document " + service + " serves differs from docs/openapi/" + service + ".json at "
                + firstDifference(before, served, "") + "; if the change is meant, " + regenerate(service);
    }

    /** The one-line command that writes the served documents over the committed ones (docs/openapi/README.md). */
    static String regenerate(String service) {
        return "regenerate it with: bin/mvn verify -pl " + service + " -am -Dit.test='*EndpointsIT' -Dtest=none "
                + "-Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false -D" + UPDATE + "=true "
                + "(then review and commit docs/openapi/)";
    }

    /** Where two documents first differ, as a JSON pointer. */
    static String firstDifference(JsonNode a, JsonNode b, String at) {
        if (a.isObject() && b.isObject()) {
            var names = new java.util.TreeSet<String>();
            a.fieldNames().forEachRemaining(names::add);
            b.fieldNames().forEachRemaining(names::add);
            for (String name : names) {
                JsonNode x = a.path(name);
                JsonNode y = b.path(name);
                if (!x.equals(y)) {
                    return firstDifference(x, y, at + "/" + name.replace("~", "~0").replace("/", "~1"));
                }
            }
        } else if (a.isArray() && b.isArray() && a.size() == b.size()) {
            for (int i = 0; i < a.size(); i++) {
                if (!a.get(i).equals(b.get(i))) {
                    return firstDifference(a.get(i), b.get(i), at + "/" + i);
                }
            }
        }
        return (at.isEmpty() ? "/" : at) + " (committed " + abbreviated(a) + ", served " + abbreviated(b) + ")";
    }

    private static String abbreviated(JsonNode node) {
        String text = node.isMissingNode() ? "nothing" : node.toString();
        return text.length() > 120 ? text.substring(0, 117) + "..." : text;
    }
}
