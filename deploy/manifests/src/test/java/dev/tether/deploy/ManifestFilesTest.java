package dev.tether.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.deploy.Manifests.Doc;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every manifest parses, names what Kubernetes needs, and every container says what it runs and how it is checked. */
class ManifestFilesTest {

    @Test
    void everyYamlFile_underComposeAndK8s_parses_intoAtLeastOneDocument() {
        var files = new ArrayList<Path>();
        files.addAll(Manifests.yamlFiles(Repo.path("deploy", "compose")));
        files.addAll(Manifests.yamlFiles(Manifests.k8sDirectory()));

        assertThat(files).extracting(Repo::relative).contains(
                "deploy/compose/docker-compose.yml", "deploy/k8s/base/kustomization.yaml", "deploy/k8s/base/kafka-topics.yaml");
        for (Path file : files) {
            assertThat(Manifests.documents(file)).as(Repo.relative(file)).isNotEmpty();
        }
        // the multi-document files really are read whole: eight topics, a StatefulSet and its three companions
        assertThat(Manifests.docs(Manifests.baseDirectory().resolve("kafka-topics.yaml"))).hasSize(8);
        assertThat(Manifests.docs(Manifests.baseDirectory().resolve("session-service.yaml")))
                .extracting(Doc::kind).containsExactly("StatefulSet", "Service", "Service", "PodDisruptionBudget");
    }

    @Test
    void everyKubernetesDocument_hasApiVersionKindAndName() {
        List<Doc> docs = Manifests.allK8s();

        assertThat(docs).hasSizeGreaterThan(30);
        for (Doc doc : docs) {
            assertThat(Yaml.stringOrNull(doc.root(), "apiVersion")).as(doc.where() + " apiVersion").isNotBlank();
            assertThat(doc.kind()).as(doc.where() + " kind").isNotBlank();
            if (!"Kustomization".equals(doc.kind())) {
                assertThat(doc.name()).as(doc.where() + " metadata.name").matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");
            }
        }
    }

    @Test
    void kustomizations_applyEveryManifestOfTheBase_andNameOnlyFilesThatExist() {
        List<Path> listed = Manifests.baseResources();
        List<Path> present = Manifests.yamlFiles(Manifests.baseDirectory()).stream()
                .filter(f -> !f.getFileName().toString().equals("kustomization.yaml"))
                .toList();

        assertThat(listed).containsExactlyInAnyOrderElementsOf(present);
        for (Path overlay : Manifests.yamlFiles(Manifests.k8sDirectory().resolve("overlays"))) {
            if (!overlay.getFileName().toString().equals("kustomization.yaml")) {
                continue;
            }
            Map<String, Object> kustomization = Manifests.docs(overlay).get(0).root();
            for (Object resource : Yaml.listOrEmpty(kustomization, "resources")) {
                assertThat(overlay.getParent().resolve(resource.toString()).normalize()).as(Repo.relative(overlay) + " " + resource).exists();
            }
            for (Map<String, Object> patch : Yaml.maps(kustomization, "patches")) {
                Path file = overlay.getParent().resolve(Yaml.string(patch, "path"));
                assertThat(file).as(Repo.relative(overlay) + " patch").exists();
                Doc target = Manifests.docs(file).get(0);
                assertThat(Manifests.base()).as(Repo.relative(file) + " patches something the base has")
                        .anySatisfy(d -> {
                            assertThat(d.kind()).isEqualTo(target.kind());
                            assertThat(d.name()).isEqualTo(target.name());
                        });
            }
        }
    }

    @Test
    void everyContainer_namesAnImage_portsProbesAndResources() {
        List<Doc> workloads = Manifests.workloads();

        assertThat(workloads).extracting(Doc::kind).contains("StatefulSet", "Deployment");
        assertThat(workloads).hasSize(Repo.SERVICES.size() + 1); // and the registry
        for (Doc workload : workloads) {
            assertThat(Yaml.map(workload.root(), "spec", "selector", "matchLabels")).as(workload.where() + " selector")
                    .isNotEmpty();
            for (Map<String, Object> container : Manifests.containers(workload)) {
                String where = workload.where() + " container " + Yaml.stringOrNull(container, "name");
                assertThat(Yaml.string(container, "image")).as(where + " image").matches("[a-z0-9./-]+:[A-Za-z0-9._-]+");
                assertThat(Yaml.maps(container, "ports")).as(where + " ports").isNotEmpty()
                        .allSatisfy(p -> assertThat(Yaml.integer(p, "containerPort")).isBetween(1, 65535));
                for (String probe : List.of("readinessProbe", "livenessProbe", "startupProbe")) {
                    assertThat(Yaml.string(container, probe, "httpGet", "path")).as(where + " " + probe).startsWith("/");
                }
                for (String bound : List.of("requests", "limits")) {
                    assertThat(Yaml.mapOrEmpty(container, "resources", bound)).as(where + " resources." + bound)
                            .containsKey("memory");
                }
                assertThat(Yaml.mapOrEmpty(container, "resources", "requests")).as(where).containsKey("cpu");
                assertThat(Yaml.string(container, "securityContext", "allowPrivilegeEscalation")).as(where).isEqualTo("false");
            }
        }
    }

    @Test
    void dockerfiles_packageTheFastJar_asAnUnprivilegedUser() {
        for (String service : Repo.SERVICES) {
            Path dockerfile = Repo.path(service, "src", "main", "docker", "Dockerfile.jvm");
            assertThat(dockerfile).as(service).isRegularFile();
            List<String> lines = Repo.read(dockerfile).lines().map(String::strip).filter(l -> !l.startsWith("#")).toList();

            assertThat(lines).as(service).anyMatch(l -> l.startsWith("FROM "));
            for (String layer : List.of("lib/", "*.jar", "app/", "quarkus/")) {
                assertThat(lines).as(service + " copies quarkus-app/" + layer)
                        .anyMatch(l -> l.startsWith("COPY ") && l.contains("target/quarkus-app/" + layer));
            }
            assertThat(lines).as(service + " EXPOSE").contains("EXPOSE " + Repo.httpPort(service));
            assertThat(lines).as(service + " USER").filteredOn(l -> l.startsWith("USER ")).last()
                    .satisfies(user -> assertThat(user).isNotIn("USER root", "USER 0"));
            assertThat(lines).as(service).anyMatch(l -> l.contains("quarkus-run.jar"));
        }
    }
}
