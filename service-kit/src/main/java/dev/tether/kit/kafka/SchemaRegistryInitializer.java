package dev.tether.kit.kafka;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Registers the value schema of every Tether topic and sets its subject's compatibility to
 * FULL_TRANSITIVE, through the registry's Confluent-compatible API. Idempotent: registering a
 * schema the subject already has returns its id.
 *
 * <p>A schema the subject's rule refuses (an incompatible change that slipped past the build's
 * check) fails here, at start-up, with the registry's reason, instead of at the first produce. A registry that does not
 * answer (refused, silent past the timeouts, or a server error) fails with {@link RegistryUnavailableException}, which
 * a caller may retry.
 */
public final class SchemaRegistryInitializer {

    public static final String COMPATIBILITY = "FULL_TRANSITIVE";
    private static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";

    /** A subject the registry holds: its name, the id of the current schema, and its rule. */
    public record Subject(String name, int schemaId, String compatibility) {}

    /** What {@link #verify} found: the subjects that are ready, and what is wrong with each of the others. */
    public record Verification(List<Subject> ready, List<String> problems) {}

    private final String ccompatUrl;
    private final HttpClient http;
    private final ObjectMapper json = new ObjectMapper();
    private final Duration timeout;

    /**
     * @param ccompatUrl the registry's Confluent-compatible API, e.g. {@code http://127.0.0.1:8085/apis/ccompat/v7}
     * @param timeout    how long connecting may take, and how long each request may wait for its answer
     */
    public SchemaRegistryInitializer(String ccompatUrl, Duration timeout) {
        this(ccompatUrl, timeout, timeout);
    }

    /**
     * @param ccompatUrl     the registry's Confluent-compatible API, e.g. {@code http://127.0.0.1:8085/apis/ccompat/v7}
     * @param connectTimeout how long connecting may take
     * @param requestTimeout how long each request may wait for its answer
     */
    public SchemaRegistryInitializer(String ccompatUrl, Duration connectTimeout, Duration requestTimeout) {
        this.ccompatUrl = ccompatUrl.endsWith("/") ? ccompatUrl.substring(0, ccompatUrl.length() - 1) : ccompatUrl;
        this.timeout = requestTimeout;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(connectTimeout).build();
    }

    /** The initializer of the registry of {@code settings}, with its deadlines. */
    public static SchemaRegistryInitializer of(RegistrySettings settings) {
        return new SchemaRegistryInitializer(settings.ccompatUrl(), settings.connectTimeout(), settings.requestTimeout());
    }

    /** The Confluent-compatible API URL of the registry whose Apicurio v3 API is at {@code registryUrl}. */
    public static String ccompatUrlOf(String registryUrl) {
        return registryUrl.replaceFirst("/apis/registry/v3/?$", "/apis/ccompat/v7");
    }

    public List<Subject> init(TopicLayout layout) {
        var subjects = new ArrayList<Subject>();
        for (TopicSpec spec : Topics.all(layout)) {
            int id = register(spec.valueSubject(), spec.valueSchema().toString());
            setCompatibility(spec.valueSubject(), COMPATIBILITY);
            subjects.add(new Subject(spec.valueSubject(), id, COMPATIBILITY));
        }
        return subjects;
    }

    /**
     * Checks, writing nothing, that each topic's value schema is registered under its subject and that the subject has
     * the {@value #COMPATIBILITY} rule of its own: a schema lookup ({@code POST /subjects/<subject>}, which registers
     * nothing) and the subject's rule ({@code GET /config/<subject>}, not the registry's global one).
     *
     * @throws IllegalStateException when the registry answers a request with neither the subject nor a 404
     */
    public Verification verify(TopicLayout layout) {
        var ready = new ArrayList<Subject>();
        var problems = new ArrayList<String>();
        for (TopicSpec spec : Topics.all(layout)) {
            String subject = spec.valueSubject();
            String path = URLEncoder.encode(subject, StandardCharsets.UTF_8);
            var schema = send("POST", "/subjects/" + path, Map.of("schema", spec.valueSchema().toString()));
            var rule = send("GET", "/config/" + path, null);
            expectOkOrAbsent(schema, "looking up the schema of " + subject);
            expectOkOrAbsent(rule, "reading the rule of " + subject);
            String compatibility = rule.statusCode() == 200 ? read(rule.body()).path("compatibilityLevel").asText("") : "";
            if (schema.statusCode() == 404) {
                problems.add(subject + " does not hold the schema of " + spec.name());
            } else if (!compatibility.equals(COMPATIBILITY)) {
                problems.add(subject + " has " + (compatibility.isEmpty() ? "no rule of its own" : "the rule " + compatibility) + ", not "
                        + COMPATIBILITY);
            } else {
                ready.add(new Subject(subject, read(schema.body()).path("id").asInt(), compatibility));
            }
        }
        return new Verification(List.copyOf(ready), List.copyOf(problems));
    }

    /** Registers {@code schema} under {@code subject}; returns its id. */
    public int register(String subject, String schema) {
        var response = send("POST", "/subjects/" + subject + "/versions", Map.of("schema", schema));
        if (response.statusCode() == 409) {
            // a conflict is an incompatible schema, or another instance registering the same one right now
            var existing = send("POST", "/subjects/" + subject, Map.of("schema", schema));
            if (existing.statusCode() == 200) {
                return read(existing.body()).get("id").asInt();
            }
            throw new IllegalStateException("the registry refused the schema of subject '" + subject
                    + "' as incompatible with its " + compatibility(subject) + " rule: " + response.body());
        }
        expectOk(response, "registering the schema of " + subject);
        return read(response.body()).get("id").asInt();
    }

    /**
     * Sets the subject's compatibility rule. Several services may do this at once; when the
     * registry answers that another request created the rule first, the rule is read back.
     */
    public void setCompatibility(String subject, String level) {
        for (int attempt = 1; attempt <= 3; attempt++) {
            var response = send("PUT", "/config/" + subject, Map.of("compatibility", level));
            if (response.statusCode() != 409) {
                expectOk(response, "setting the compatibility of " + subject);
                return;
            }
            if (level.equals(compatibility(subject))) {
                return;
            }
        }
        throw new IllegalStateException("could not set the compatibility of " + subject + " to " + level
                + ": it kept changing under concurrent updates");
    }

    /** The subject's compatibility rule, or the registry's global one if the subject has none. */
    public String compatibility(String subject) {
        var response = send("GET", "/config/" + subject, null);
        if (response.statusCode() == 404) {
            response = send("GET", "/config", null);
        }
        expectOk(response, "reading the compatibility of " + subject);
        return read(response.body()).get("compatibilityLevel").asText();
    }

    private HttpResponse<String> send(String method, String path, Object body) {
        try {
            var request = HttpRequest.newBuilder(URI.create(ccompatUrl + path))
                    .timeout(timeout)
                    .header("Accept", CONTENT_TYPE)
                    .header("Content-Type", CONTENT_TYPE)
                    .method(method, body == null
                            ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body)))
                    .build();
            var response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() >= 500) {
                throw new RegistryUnavailableException(ccompatUrl, "answered HTTP " + response.statusCode() + " to " + method + " " + path, null);
            }
            return response;
        } catch (java.net.http.HttpTimeoutException e) {
            throw new RegistryUnavailableException(ccompatUrl, "did not answer " + method + " " + path + " within " + timeout.toMillis()
                    + " ms", e);
        } catch (IOException e) {
            throw new RegistryUnavailableException(ccompatUrl, "is not reachable: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while calling the schema registry", e);
        }
    }

    private com.fasterxml.jackson.databind.JsonNode read(String body) {
        try {
            return json.readTree(body);
        } catch (IOException e) {
            throw new IllegalStateException("unreadable answer from the schema registry: " + body, e);
        }
    }

    private static void expectOkOrAbsent(HttpResponse<String> response, String what) {
        if (response.statusCode() != 404) {
            expectOk(response, what);
        }
    }

    private static void expectOk(HttpResponse<String> response, String what) {
        if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException(what + " failed: HTTP " + response.statusCode() + " " + response.body());
        }
    }
}
