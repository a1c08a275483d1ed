package dev.tether.deploy;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/** The manifests under deploy/, parsed: every document of every YAML file. */
final class Manifests {

    /** Kinds that run the services' pods. */
    static final List<String> WORKLOAD_KINDS = List.of("Deployment", "StatefulSet");

    private Manifests() {}

    /** One document of a manifest file. */
    record Doc(Path file, int index, Map<String, Object> root) {

        String kind() {
            return Yaml.stringOrNull(root, "kind");
        }

        String name() {
            return Yaml.stringOrNull(root, "metadata", "name");
        }

        /** Where it is, for messages: the file, and the kind and name of the document. */
        String where() {
            return Repo.relative(file) + " [" + kind() + " " + name() + "]";
        }

        Map<String, Object> spec() {
            return Yaml.map(root, "spec");
        }
    }

    static Path composeFile() {
        return Repo.path("deploy", "compose", "docker-compose.yml");
    }

    static Path k8sDirectory() {
        return Repo.path("deploy", "k8s");
    }

    static Path baseDirectory() {
        return k8sDirectory().resolve("base");
    }

    /** Every .yaml and .yml file under the directory, sorted. */
    static List<Path> yamlFiles(Path directory) {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(Files::isRegularFile)
                    .filter(f -> f.getFileName().toString().endsWith(".yaml") || f.getFileName().toString().endsWith(".yml"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The documents of a YAML file (several, separated by ---), skipping empty ones. */
    static List<Object> documents(Path file) {
        var yaml = new org.yaml.snakeyaml.Yaml(new SafeConstructor(new LoaderOptions()));
        var documents = new ArrayList<>();
        try (Reader reader = Files.newBufferedReader(file)) {
            for (Object document : yaml.loadAll(reader)) {
                if (document != null) {
                    documents.add(document);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            throw new AssertionError(Repo.relative(file) + " is not valid YAML: " + e.getMessage(), e);
        }
        return documents;
    }

    @SuppressWarnings("unchecked")
    static List<Doc> docs(Path file) {
        var docs = new ArrayList<Doc>();
        List<Object> documents = documents(file);
        for (int i = 0; i < documents.size(); i++) {
            if (!(documents.get(i) instanceof Map<?, ?> map)) {
                throw new AssertionError(Repo.relative(file) + " document " + i + " is not a mapping");
            }
            docs.add(new Doc(file, i, (Map<String, Object>) map));
        }
        return docs;
    }

    /** Every document under deploy/k8s: the base, the overlays and the examples. */
    static List<Doc> allK8s() {
        return yamlFiles(k8sDirectory()).stream().flatMap(f -> docs(f).stream()).toList();
    }

    /** The files the base kustomization applies, in its order. */
    static List<Path> baseResources() {
        Doc kustomization = docs(baseDirectory().resolve("kustomization.yaml")).get(0);
        return Yaml.listOrEmpty(kustomization.root(), "resources").stream()
                .map(r -> baseDirectory().resolve(r.toString()).normalize())
                .toList();
    }

    /** What `kubectl apply -k deploy/k8s/base` applies. */
    static List<Doc> base() {
        return baseResources().stream().flatMap(f -> docs(f).stream()).toList();
    }

    static List<Doc> ofKind(List<Doc> docs, String kind) {
        return docs.stream().filter(d -> kind.equals(d.kind())).toList();
    }

    /** The Deployments and StatefulSets of the base. */
    static List<Doc> workloads() {
        return base().stream().filter(d -> WORKLOAD_KINDS.contains(d.kind())).toList();
    }

    /** The workload that runs a service (its pods are labelled app.kubernetes.io/name=service). */
    static Doc workloadOf(String service) {
        List<Doc> found = workloads().stream().filter(w -> service.equals(podLabels(w).get("app.kubernetes.io/name"))).toList();
        if (found.size() != 1) {
            throw new AssertionError("expected one workload running " + service + ", found " + found.stream().map(Doc::where).toList());
        }
        return found.get(0);
    }

    static Map<String, String> podLabels(Doc workload) {
        return Yaml.strings(Yaml.map(workload.root(), "spec", "template", "metadata", "labels"));
    }

    static Map<String, Object> podSpec(Doc workload) {
        return Yaml.map(workload.root(), "spec", "template", "spec");
    }

    static List<Map<String, Object>> containers(Doc workload) {
        return Yaml.maps(podSpec(workload), "containers");
    }

    /** The one container of a service's pods. */
    static Map<String, Object> container(Doc workload) {
        List<Map<String, Object>> containers = containers(workload);
        if (containers.size() != 1) {
            throw new AssertionError(workload.where() + " should run one container, not " + containers.size());
        }
        return containers.get(0);
    }

    /** The parsed docker-compose.yml. */
    static Map<String, Object> compose() {
        List<Doc> docs = docs(composeFile());
        if (docs.size() != 1) {
            throw new AssertionError("docker-compose.yml should be one document, not " + docs.size());
        }
        return docs.get(0).root();
    }

    static Map<String, Object> composeService(String service) {
        return Yaml.map(compose(), "services", service);
    }

    static Map<String, String> composeEnvironment(String service) {
        return Yaml.strings(Yaml.mapOrEmpty(composeService(service), "environment"));
    }
}
