package dev.tether.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.lang.module.ModuleDescriptor;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/** The class-level boundaries of the build, as ArchUnit rules over imported classes. Stateless. */
final class Rules {

    /**
     * What a {@code ..domain..} package must not use: the infrastructure the issue names (Kafka, Quarkus, Jackson,
     * Avro, Vert.x, JAX-RS) and what comes with it.
     */
    static final List<String> INFRASTRUCTURE = List.of(
            "org.apache.kafka..",
            "io.quarkus..",
            "com.fasterxml.jackson..",
            "org.apache.avro..",
            // the generated Avro classes: Avro stays at the edge, converted in one mapper per service
            "dev.tether.avro..",
            // the registry's serdes are Avro and Kafka again
            "io.apicurio..",
            "io.vertx..",
            "jakarta.ws.rs..",
            // CDI: a domain object is made by its caller (a test, a processor), never looked up in a container
            "jakarta.enterprise..",
            "jakarta.inject..",
            // MicroProfile and SmallRye, its implementation in Quarkus: config, health, Mutiny
            "org.eclipse.microprofile..",
            "io.smallrye..",
            // spans and metrics are recorded where the infrastructure is, not in a fold
            "io.opentelemetry..",
            "io.micrometer..",
            // the service kit is exactly the Kafka and Quarkus plumbing above, wrapped
            "dev.tether.kit..");

    private Rules() {}

    /** No class in a {@code ..domain..} package depends on {@link #INFRASTRUCTURE}. */
    static ArchRule domainIsPureJava() {
        return noClasses().that().resideInAPackage("..domain..")
                .should().dependOnClassesThat().resideInAnyPackage(INFRASTRUCTURE.toArray(String[]::new))
                .because("a domain package is pure Java (STYLE.md): its decide/evolve folds run with no broker, no"
                        + " container and no wire format; Kafka, Avro, JSON and REST stay in kafka/ and rest/");
    }

    /**
     * The packages the JDK exports to everyone ({@code java.*}, {@code javax.crypto}, {@code javax.xml.*} and the
     * rest of the running JDK's API), read from the modules of the boot layer.
     */
    private static final Set<String> JDK_API = ModuleLayer.boot().modules().stream()
            .flatMap(m -> m.getDescriptor().exports().stream())
            .filter(export -> !export.isQualified())
            .map(ModuleDescriptor.Exports::source)
            .collect(Collectors.toUnmodifiableSet());

    private static final DescribedPredicate<JavaClass> IN_THE_JDK = DescribedPredicate.describe(
            "are primitives or in a package the JDK exports",
            c -> c.getBaseComponentType().isPrimitive() || JDK_API.contains(c.getBaseComponentType().getPackageName()));

    /**
     * The classes in {@code packageIdentifier} (e.g. {@code dev.tether.core..}) depend on the JDK's API and each
     * other only.
     */
    static ArchRule dependsOnlyOnTheJdk(String packageIdentifier) {
        return classes().that().resideInAPackage(packageIdentifier)
                .should().onlyDependOnClassesThat(IN_THE_JDK.or(JavaClass.Predicates.resideInAPackage(packageIdentifier)))
                .because("the core module depends on nothing but the JDK (issue 14 item 1), so every module,"
                        + " the SDK's users included, can take it without taking a framework");
    }

    /**
     * No class depends on a class of a service module other than its own: not one service on another, and not any
     * other module (CLI, benchmarks, SDK, shared modules) on a service. What two services share lives in a shared
     * module (core, service-kit, projector-core, tools).
     */
    static ArchRule noClassUsesAnotherServiceModule(Membership membership) {
        ArchCondition<JavaClass> condition = new ArchCondition<>("depend on no class of a service module but their own") {
            @Override
            public void check(JavaClass origin, ConditionEvents events) {
                Optional<String> from = membership.moduleOf(origin);
                for (Dependency dependency : origin.getDirectDependenciesFromSelf()) {
                    Optional<String> to = membership.moduleOf(dependency.getTargetClass());
                    if (to.isPresent() && membership.isService(to.get()) && !to.equals(from)) {
                        events.add(SimpleConditionEvent.violated(dependency, from.orElse("(outside the build)")
                                + " -> service module " + to.get() + ": " + dependency.getDescription()));
                    }
                }
            }
        };
        return classes().should(condition)
                .because("a service is deployed and scaled on its own; a module that needs another service's code"
                        + " would ship it twice, or bind the two together (issue 14 items 1 and 2)");
    }

    /**
     * The packages that hold classes of more than one module, each with its modules (empty when none does). With no
     * split package, a package-based rule ({@code dev.tether.core..}) is a rule about one module.
     */
    static Map<String, Set<String>> splitPackages(JavaClasses classes, Membership membership) {
        Map<String, Set<String>> modulesByPackage = new TreeMap<>();
        for (JavaClass javaClass : classes) {
            membership.moduleOf(javaClass).ifPresent(module ->
                    modulesByPackage.computeIfAbsent(javaClass.getPackageName(), p -> new TreeSet<>()).add(module));
        }
        modulesByPackage.values().removeIf(modules -> modules.size() < 2);
        return modulesByPackage;
    }

    /** Classes a membership places in the given module, for rules scoped to one module. */
    static DescribedPredicate<JavaClass> compiledIn(String module, Membership membership) {
        return DescribedPredicate.describe("compiled in module " + module,
                c -> membership.moduleOf(c).equals(Optional.of(module)));
    }
}
