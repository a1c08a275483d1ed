package dev.tether.cli.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.cli.CliException;
import dev.tether.kit.kafka.RegistrySettings;
import dev.tether.kit.kafka.SchemaRegistryInitializer;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.TopicSpec;
import dev.tether.kit.kafka.Topics;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Checks, writing nothing, that the registry holds each Tether topic's value schema under its subject, with the
 * FULL_TRANSITIVE rule: {@code topics init --verify-only}, where {@code init} registers them
 * ({@link SchemaRegistryInitializer}). Through the registry's Confluent-compatible API: a schema lookup
 * ({@code POST /subjects/<subject>}, which registers nothing) and the subject's own rule ({@code GET /config/<subject>}).
 */
public final class SchemaCheck {

    private static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
    private static final ObjectMapper JSON = new ObjectMapper();

    private SchemaCheck() {}

    /**
     * @return every subject, with its schema's id and its rule
     * @throws CliException naming every subject that lacks its schema or its rule, or when the registry cannot be read
     */
    public static List<SchemaRegistryInitializer.Subject> verify(RegistrySettings registry, TopicLayout layout) {
        String base = registry.ccompatUrl().replaceFirst("/$", "");
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(registry.connectTimeout()).build();
        var subjects = new ArrayList<SchemaRegistryInitializer.Subject>();
        var problems = new ArrayList<String>();
        for (TopicSpec spec : Topics.all(layout)) {
            String subject = spec.valueSubject();
            String path = URLEncoder.encode(subject, StandardCharsets.UTF_8);
            HttpResponse<String> schema = send(http, registry, base, "POST", "/subjects/" + path, spec.valueSchema().toString());
            HttpResponse<String> rule = send(http, registry, base, "GET", "/config/" + path, null);
            String compatibility = rule.statusCode() == 200 ? read(rule, base).path("compatibilityLevel").asText("") : "";
            if (schema.statusCode() == 404) {
                problems.add(subject + " does not hold the schema of " + spec.name());
            } else if (!compatibility.equals(SchemaRegistryInitializer.COMPATIBILITY)) {
                problems.add(subject + " has " + (compatibility.isEmpty() ? "no rule of its own" : "the rule " + compatibility) + ", not "
                        + SchemaRegistryInitializer.COMPATIBILITY);
            } else {
                subjects.add(new SchemaRegistryInitializer.Subject(subject, read(schema, base).path("id").asInt(), compatibility));
            }
        }
        if (!problems.isEmpty()) {
            throw new CliException("the registry at " + base + " is not ready for these topics ('tether topics init' registers the "
                    + "schemas): " + String.join("; ", problems));
        }
        return subjects;
    }

    private static HttpResponse<String> send(HttpClient http, RegistrySettings registry, String base, String method, String path, String schema) {
        try {
            var request = HttpRequest.newBuilder(URI.create(base + path)).timeout(registry.requestTimeout())
                    .header("Accept", CONTENT_TYPE).header("Content-Type", CONTENT_TYPE)
                    .method(method, schema == null ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(Map.of("schema", schema))))
                    .build();
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200 && response.statusCode() != 404) {
                throw new CliException("the registry at " + base + " answered HTTP " + response.statusCode() + " to " + method + " " + path
                        + " (see --registry-url)");
            }
            return response;
        } catch (java.net.http.HttpTimeoutException e) {
            throw new CliException("the registry at " + base + " did not answer " + method + " " + path + " in time (see --timeout)", e);
        } catch (IOException e) {
            throw new CliException("the registry at " + base + " is not reachable (see --registry-url): " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException("interrupted", e);
        }
    }

    private static JsonNode read(HttpResponse<String> response, String base) {
        try {
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new CliException("the registry at " + base + " answered something that is not JSON to " + response.request().uri(), e);
        }
    }
}
