package dev.tether.architecture;

import dev.tether.architecture.Pom.Dependency;
import dev.tether.architecture.Reactor.Module;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** The module-level boundaries of the build, checked on the poms as written. Each rule returns its violations. */
final class PomRules {

    private PomRules() {}

    /**
     * Every dependency, in any pom of the build (the root pom included), on a service module's artifact that is more
     * than a reactor-ordering declaration ({@link Dependency#ordersTheReactorOnly()}): no module depends on a service.
     */
    static List<String> dependenciesOnServices(Reactor reactor) {
        Set<String> services = reactor.services().stream().map(Module::artifactId).collect(Collectors.toSet());
        List<String> violations = new ArrayList<>();
        check(".", reactor.rootPom(), services, violations);
        for (Module module : reactor.modules()) {
            check(module.dir(), module.pom(), services, violations);
        }
        return violations;
    }

    private static void check(String dir, Pom pom, Set<String> services, List<String> violations) {
        for (Dependency dependency : pom.dependencies()) {
            if (services.contains(dependency.artifactId()) && !dependency.ordersTheReactorOnly()) {
                violations.add(dir + "/pom.xml depends on service module " + dependency.artifactId() + ": "
                        + dependency.describe() + ". A service module may be named only to order the reactor:"
                        + " <type>pom</type>, <scope>test</scope> and one <exclusion> of *:*");
            }
        }
    }

    /** The module's dependencies that reach a classpath outside its own tests: for a module of the JDK only, none. */
    static List<String> nonTestDependencies(Module module) {
        return module.pom().dependencies().stream()
                .filter(d -> !d.scope().equals("test"))
                .map(d -> module.dir() + "/pom.xml: " + d.describe())
                .toList();
    }

    /**
     * The modules with main code that {@code reader} does not order itself after: it reads their
     * {@code target/classes}, so the reactor must build each of them first.
     */
    static List<String> modulesNotBuiltBefore(Module reader, List<Module> read) {
        Set<String> ordered = reader.pom().dependencies().stream()
                .filter(Dependency::ordersTheReactorOnly)
                .map(Dependency::artifactId)
                .collect(Collectors.toSet());
        return read.stream()
                .filter(m -> !m.equals(reader) && !ordered.contains(m.artifactId()))
                .map(m -> m.dir() + " (" + m.artifactId() + ")")
                .toList();
    }
}
