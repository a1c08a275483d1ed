package dev.tether.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.deploy.Manifests.Doc;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Nothing committed under deploy/ (nor in the Dockerfiles) holds a real secret: only placeholders and references. */
class NoSecretsTest {

    /** Shapes of real credentials, whatever key they sit under. */
    private static final List<Pattern> SECRET_SHAPES = List.of(
            Pattern.compile("-----BEGIN [A-Z ]*PRIVATE KEY-----"),
            Pattern.compile("\\bAKIA[0-9A-Z]{16}\\b"), // AWS access key id
            Pattern.compile("\\bgh[pousr]_[A-Za-z0-9]{36,}"), // GitHub tokens
            Pattern.compile("\\bgithub_pat_[A-Za-z0-9_]{22,}"),
            Pattern.compile("\\bxox[abprs]-[A-Za-z0-9-]{10,}"), // Slack
            Pattern.compile("\\bsk-(ant-)?[A-Za-z0-9_-]{20,}"), // model providers' API keys
            Pattern.compile("\\beyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}"), // a signed JWT
            Pattern.compile("\\b[a-z][a-z0-9+.-]*://[^\\s/:@\"']+:[^\\s/@\"']+@")); // user:password@host

    /** Keys whose value is a secret when it is set. */
    private static final Pattern SECRET_KEY = Pattern.compile("(?i)(password|passwd|secret|token|api[-_]?key|private[-_]?key|credential)");

    /** What a committed secret-like value may be: nothing, a placeholder, or a reference resolved at run time. */
    private static final Pattern PLACEHOLDER = Pattern.compile("|REPLACE_ME|CHANGE_ME|<[^>]+>|\\$\\{[^}]+}|\\$\\([^)]+\\)|\\$[A-Z_]+");

    @Test
    void noFile_containsSomethingShapedLikeACredential() {
        List<Path> files = new ArrayList<>(textFiles(Repo.path("deploy", "compose")));
        files.addAll(textFiles(Manifests.k8sDirectory()));
        Repo.SERVICES.forEach(s -> files.add(Repo.path(s, "src", "main", "docker", "Dockerfile.jvm")));

        assertThat(files).hasSizeGreaterThan(10);
        for (Path file : files) {
            assertThat(credentialsIn(Repo.read(file))).as(Repo.relative(file)).isEmpty();
        }
    }

    @Test
    void secretLikeKeys_andSecrets_holdOnlyPlaceholders() {
        var offending = new ArrayList<String>();
        for (Doc doc : Manifests.allK8s()) {
            walk(doc.root(), doc.where(), offending);
            if ("Secret".equals(doc.kind())) {
                Yaml.strings(Yaml.mapOrEmpty(doc.root(), "stringData"))
                        .forEach((key, value) -> check(doc.where() + " stringData." + key, value, offending));
                Yaml.strings(Yaml.mapOrEmpty(doc.root(), "data")).forEach((key, value) -> check(doc.where() + " data." + key,
                        new String(Base64.getDecoder().decode(value), StandardCharsets.UTF_8), offending));
            }
        }
        walk(Manifests.compose(), "deploy/compose/docker-compose.yml", offending);

        assertThat(offending).isEmpty();
        assertThat(Manifests.ofKind(Manifests.base(), "Secret")).as("the base applies no Secret: it would overwrite the real one").isEmpty();
    }

    @Test
    void theChecks_catchWhatTheyAreFor() {
        // built at run time, so that this source file itself holds nothing credential-shaped
        String token = "gh" + "p_" + "a1B2c3D4e5".repeat(4);
        String key = "-----BEGIN " + "RSA PRIVATE KEY-----";
        var offending = new ArrayList<String>();

        assertThat(credentialsIn("value: " + token)).hasSize(1);
        assertThat(credentialsIn(key + "\nMIIE...")).hasSize(1);
        assertThat(credentialsIn("url: postgres://tether:" + "hunter2" + "@db:5432/tether")).hasSize(1);
        assertThat(credentialsIn("TETHER_REGISTRY_URL: http://registry:8080/apis/registry/v3")).isEmpty();
        walk(Map.of("env", List.of(Map.of("name", "GITHUB_TOKEN", "value", "hunter2"))), "sample", offending);
        walk(Map.of("DB_PASSWORD", "hunter2", "automountServiceAccountToken", false, "API_KEY", "${API_KEY}"), "sample", offending);
        assertThat(offending).containsExactlyInAnyOrder("sample env GITHUB_TOKEN", "sample DB_PASSWORD");
    }

    private static List<String> credentialsIn(String text) {
        return SECRET_SHAPES.stream().filter(p -> p.matcher(text).find()).map(Pattern::pattern).toList();
    }

    /** Every string value under a secret-like key, and every env entry with a secret-like name, must be a placeholder. */
    private static void walk(Object node, String where, List<String> offending) {
        if (node instanceof Map<?, ?> map) {
            Object name = map.get("name");
            Object value = map.get("value");
            if (name instanceof String n && value instanceof String v && SECRET_KEY.matcher(n).find()) {
                check(where + " env " + n, v, offending);
            }
            map.forEach((key, child) -> {
                if (key instanceof String k && child instanceof String v && SECRET_KEY.matcher(k).find()) {
                    check(where + " " + k, v, offending);
                }
                walk(child, where, offending);
            });
        } else if (node instanceof List<?> list) {
            list.forEach(item -> walk(item, where, offending));
        }
    }

    private static void check(String where, String value, List<String> offending) {
        if (!PLACEHOLDER.matcher(value.strip()).matches()) {
            offending.add(where);
        }
    }

    private static List<Path> textFiles(Path directory) {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(Files::isRegularFile).sorted().toList();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
