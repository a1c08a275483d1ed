package dev.tether.deploy;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** The repository the manifests live in, and what its code says they must match. */
final class Repo {

    /** The four services, by module directory (which is also their quarkus.application.name). */
    static final List<String> SERVICES = List.of("session-service", "projector-service", "approval-service", "tool-executor");

    /** The services that run a Kafka Streams application, so they advertise an address and keep state. */
    static final List<String> STREAMS_SERVICES = List.of("session-service", "projector-service", "approval-service");

    private static final Pattern IMAGE_JAVA_OPTS = Pattern.compile("JAVA_OPTS=\"([^\"]*)\"");

    private static final Pattern DEFAULT_OF_EXPRESSION = Pattern.compile("\\$\\{[^:}]+:([^}]*)}");

    private Repo() {}

    static Path root() {
        String configured = System.getProperty("tether-test.root");
        if (configured != null && Files.isDirectory(Path.of(configured, "deploy", "k8s"))) {
            return Path.of(configured).toAbsolutePath().normalize();
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("deploy/k8s")) && Files.isRegularFile(dir.resolve("pom.xml"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no repository root with deploy/k8s above " + Path.of("").toAbsolutePath());
    }

    static Path path(String first, String... more) {
        return root().resolve(Path.of(first, more));
    }

    /** This build's version: the tag of every Tether image and the value of app.kubernetes.io/version. */
    static String version() {
        return required("tether.version");
    }

    /** The Kafka the project builds and tests against (the root pom's kafka.version). */
    static String kafkaVersion() {
        return required("tether.kafka.version");
    }

    /** The Apicurio Registry the project runs (the root pom's apicurio.registry.version). */
    static String apicurioVersion() {
        return required("tether.apicurio.version");
    }

    /** A service's src/main/resources/application.properties. */
    static Properties applicationProperties(String service) {
        return properties(path(service, "src/main/resources/application.properties"));
    }

    /** The port a service listens on unless told otherwise: the default of its quarkus.http.port. */
    static int httpPort(String service) {
        return Integer.parseInt(defaultOf(applicationProperties(service), "quarkus.http.port", service));
    }

    /** The executor's run_command timeout (tether.executor.commands.timeout). */
    static Duration commandTimeout() {
        return Duration.parse(defaultOf(applicationProperties("tool-executor"), "tether.executor.commands.timeout", "tool-executor"));
    }

    /** A setting's value in a service's application.properties: the default of its expression, or the value itself. */
    static String defaultSetting(String service, String key) {
        return defaultOf(applicationProperties(service), key, service);
    }

    /** The JAVA_OPTS a service's image runs with unless the container sets its own (the ENV of its Dockerfile.jvm). */
    static String imageJavaOptions(String service) {
        Matcher env = IMAGE_JAVA_OPTS.matcher(read(path(service, "src", "main", "docker", "Dockerfile.jvm")));
        if (!env.find()) {
            throw new AssertionError(service + " Dockerfile.jvm sets no JAVA_OPTS");
        }
        return env.group(1);
    }

    /** Every properties file the services read their settings from: their own and the shared defaults. */
    static List<Path> configurationFiles() {
        try (Stream<Path> modules = Files.list(root())) {
            var files = new java.util.ArrayList<>(modules
                    .map(m -> m.resolve("src/main/resources/application.properties"))
                    .filter(Files::isRegularFile)
                    .sorted()
                    .toList());
            files.add(path("service-kit", "src/main/resources/META-INF/microprofile-config.properties"));
            return List.copyOf(files);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Properties properties(Path file) {
        var properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file)) {
            properties.load(reader);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return properties;
    }

    static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A path relative to the repository root, for messages. */
    static String relative(Path file) {
        return root().relativize(file.toAbsolutePath().normalize()).toString();
    }

    private static String defaultOf(Properties properties, String key, String where) {
        String value = properties.getProperty(key);
        if (value == null) {
            throw new AssertionError(where + " does not set " + key);
        }
        Matcher expression = DEFAULT_OF_EXPRESSION.matcher(value.strip());
        return expression.matches() ? expression.group(1) : value.strip();
    }

    private static String required(String property) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("system property " + property + " is not set (the module's pom passes it to Surefire)");
        }
        return value;
    }
}
