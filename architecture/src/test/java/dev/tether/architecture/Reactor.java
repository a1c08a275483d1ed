package dev.tether.architecture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The build as the root pom lists it: every module (nested {@code <modules>} followed), each with its pom. Read
 * from the repository root that the parent pom passes to tests as {@code tether-test.root}. Immutable.
 *
 * @param root the repository root
 * @param rootPom the root pom (the aggregator and parent of every module)
 * @param modules the modules in the root pom's order, nested ones after their aggregator
 */
record Reactor(Path root, Pom rootPom, List<Module> modules) {

    /** The artifactId every Quarkus service's pom names as its parent: that is what makes a module a service. */
    static final String SERVICE_PARENT = "tether-service-parent";

    Reactor {
        modules = List.copyOf(modules);
    }

    /**
     * One module.
     *
     * @param dir its directory relative to the repository root, with {@code /} separators (e.g. {@code deploy/local})
     * @param path its directory
     * @param pom its pom
     */
    record Module(String dir, Path path, Pom pom) {

        boolean isService() {
            return pom.parentArtifactId().equals(Optional.of(SERVICE_PARENT));
        }

        /** Whether the module has main code (Java, or Avro schemas compiled to classes), so must have classes. */
        boolean hasMainCode() {
            return Files.isDirectory(path.resolve("src/main/java")) || Files.isDirectory(path.resolve("src/main/avro"));
        }

        Path classes() {
            return path.resolve("target/classes");
        }

        String artifactId() {
            return pom.artifactId();
        }
    }

    /** The reactor of this repository; fails when not run by Maven, which sets {@code tether-test.root}. */
    static Reactor ofThisBuild() {
        String root = System.getProperty("tether-test.root");
        if (root == null || root.isBlank()) {
            throw new IllegalStateException("system property tether-test.root is not set: run these tests through Maven"
                    + " (bin/mvn verify -pl architecture), whose parent pom sets it to the repository root");
        }
        return read(Path.of(root).toAbsolutePath().normalize());
    }

    static Reactor read(Path root) {
        Pom rootPom = Pom.read(root.resolve("pom.xml"));
        List<Module> modules = new ArrayList<>();
        collect(root, root, rootPom, modules);
        return new Reactor(root, rootPom, modules);
    }

    private static void collect(Path root, Path dir, Pom pom, List<Module> into) {
        for (String name : pom.modules()) {
            Path path = dir.resolve(name).normalize();
            Pom modulePom = Pom.read(path.resolve("pom.xml"));
            into.add(new Module(root.relativize(path).toString().replace('\\', '/'), path, modulePom));
            collect(root, path, modulePom, into);
        }
    }

    List<Module> services() {
        return modules.stream().filter(Module::isService).toList();
    }

    Module module(String dir) {
        return modules.stream().filter(m -> m.dir().equals(dir)).findFirst()
                .orElseThrow(() -> new IllegalStateException("the root pom lists no module " + dir));
    }
}
