package dev.tether.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class OpenApiDocumentsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A valid document with one operation whose bodies are {@code request} and {@code answer}. */
    private static JsonNode document(String request, String answer) throws IOException {
        return JSON.readTree("""
                {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
                 "paths": {"/v1/things": {"post": {
                   "requestBody": {"content": {"application/json": {"schema": %s}}},
                   "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": %s}}},
                                 "404": {"$ref": "#/components/responses/NotFound"}}}}},
                 "components": {
                   "schemas": {"Thing": {"type": "object", "properties": {"name": {"type": "string"}}},
                               "Error": {"type": "object", "properties": {"error": {"type": "string"}}},
                               "Empty": {"type": "object"}},
                   "responses": {"NotFound": {"description": "no", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}}}
                """.formatted(request, answer));
    }

    @Test
    void typedBodies_passBothChecks() throws IOException {
        JsonNode doc = document("{\"$ref\": \"#/components/schemas/Thing\"}", "{\"type\": \"array\", \"items\": {\"type\": \"integer\"}}");
        assertThat(OpenApiDocuments.untypedBodies(doc)).isEmpty();
        assertThat(OpenApiDocuments.problems(doc)).isEmpty();
    }

    @Test
    void aBinaryRequest_anEmptyObjectAnswer_andAnAnswerWithoutSchema_areUntyped() throws IOException {
        JsonNode doc = document("{\"type\": \"string\", \"format\": \"binary\"}", "{\"$ref\": \"#/components/schemas/Empty\"}");
        assertThat(OpenApiDocuments.untypedBodies(doc)).containsExactly(
                "POST /v1/things request application/json: string/binary",
                "POST /v1/things 200 application/json: an object with no properties");
        JsonNode noSchema = document("{}", "{\"type\": \"object\", \"additionalProperties\": {\"type\": \"string\"}}");
        assertThat(OpenApiDocuments.untypedBodies(noSchema)).containsExactly("POST /v1/things request application/json: a schema with no type");
    }

    @Test
    void anErrorAnswerWithoutBody_isUntyped_andADanglingRef_isAProblem() throws IOException {
        JsonNode doc = document("{\"$ref\": \"#/components/schemas/Thing\"}", "{\"$ref\": \"#/components/schemas/Missing\"}");
        ((com.fasterxml.jackson.databind.node.ObjectNode) doc.at("/components/responses/NotFound")).remove("content");
        assertThat(OpenApiDocuments.untypedBodies(doc)).contains("POST /v1/things 404: no body described");
        assertThat(OpenApiDocuments.problems(doc)).anyMatch(p -> p.contains("#/components/schemas/Missing names nothing"));
    }

    @Test
    void anInvalidDocument_hasProblems() throws IOException {
        JsonNode doc = JSON.readTree("{\"openapi\": \"3.1.0\", \"paths\": {\"/x\": {\"get\": {\"responses\": 7}}}}");
        assertThat(OpenApiDocuments.problems(doc)).isNotEmpty();
    }

    @Test
    void theCanonicalForm_sortsKeys_keepsArrays_andReadsBackEqual() throws IOException {
        JsonNode doc = JSON.readTree("{\"b\": {\"z\": 1, \"a\": [3, 1]}, \"a\": \"x\"}");
        String text = OpenApiDocuments.canonical(doc);
        assertThat(text).isEqualTo("{\n  \"a\": \"x\",\n  \"b\": {\n    \"a\": [\n      3,\n      1\n    ],\n    \"z\": 1\n  }\n}\n");
        assertThat(JSON.readTree(text)).isEqualTo(doc);
    }

    @Test
    void aServedDocument_thatDiffersFromTheCommittedOne_isNamedWithWhereAndHowToRegenerate(@TempDir Path root) throws IOException {
        Files.createDirectories(root.resolve("docs/openapi"));
        Files.writeString(root.resolve("docs/openapi/thing-service.json"), "{\"paths\": {\"/a\": {\"get\": {\"summary\": \"old\"}}}}");
        JsonNode served = JSON.readTree("{\"paths\": {\"/a\": {\"get\": {\"summary\": \"new\"}}}}");
        assertThat(OpenApiDocuments.committedDifference(root, "thing-service", served))
                .contains("/paths/~1a/get/summary (committed \"old\", served \"new\")")
                .contains("-Dtether-test.openapi-update=true");
        assertThat(OpenApiDocuments.committedDifference(root, "thing-service", JSON.readTree("{\"paths\": {\"/a\": {\"get\": {\"summary\": \"old\"}}}}")))
                .isNull();
        assertThat(OpenApiDocuments.committedDifference(root, "other-service", served)).contains("is not committed");
    }

    static Stream<Path> committedDocuments() throws IOException {
        Path dir = Path.of(System.getProperty("tether-test.root", "..")).resolve("docs/openapi");
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.toString().endsWith(".json")).sorted().toList().stream();
        }
    }

    /** The committed documents themselves (what clients are built from), without a service: valid, and every body typed. */
    @ParameterizedTest
    @MethodSource("committedDocuments")
    void everyCommittedDocument_isValid_andTypesEveryBody(Path file) throws IOException {
        JsonNode doc = JSON.readTree(file.toFile());
        assertThat(OpenApiDocuments.problems(doc)).isEmpty();
        assertThat(OpenApiDocuments.untypedBodies(doc)).isEmpty();
        assertThat(Files.readString(file)).isEqualTo(OpenApiDocuments.canonical(doc));
    }
}
