package dev.tether.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import dev.tether.architecture.Reactor.Module;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The class-level boundaries, checked on the main classes of every module of this build (imported once). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BoundariesTest {

    /** The services today; a new one is added here, so a service that stops being one cannot go unnoticed. */
    static final Set<String> SERVICES = Set.of("session-service", "projector-service", "approval-service", "tool-executor");

    private final Reactor reactor = Reactor.ofThisBuild();
    private final CompiledModules build = CompiledModules.of(reactor);
    private final JavaClasses classes = build.classes();

    @Test
    void theRules_seeTheClassesOfEveryModuleWithMainCode() {
        assertThat(build.classCounts().keySet()).containsExactlyInAnyOrderElementsOf(
                reactor.modules().stream().filter(Module::hasMainCode).map(Module::dir).toList());
        assertThat(build.classCounts().values()).allSatisfy(count -> assertThat(count).isPositive());
        assertThat(reactor.services()).extracting(Module::dir)
                .as("modules whose parent is %s (the services); a new service goes into SERVICES", Reactor.SERVICE_PARENT)
                .containsExactlyInAnyOrderElementsOf(SERVICES);
    }

    @Test
    void domainPackages_importNoKafkaQuarkusJacksonAvroVertxOrJaxRs() {
        Set<String> modulesWithDomain = new TreeSet<>();
        for (JavaClass javaClass : classes) {
            if (javaClass.getPackageName().matches(".*\\.domain(\\..*)?")) {
                build.moduleOf(javaClass).ifPresent(modulesWithDomain::add);
            }
        }
        assertThat(modulesWithDomain).as("modules with a domain package")
                .contains("projector-core", "session-service", "approval-service", "tool-executor");

        Rules.domainIsPureJava().check(classes);
    }

    @Test
    void core_dependsOnNothingButTheJdk() {
        classes().that(Rules.compiledIn("core", build)).should().resideInAPackage("dev.tether.core..").check(classes);

        Rules.dependsOnlyOnTheJdk("dev.tether.core..").check(classes);
    }

    @Test
    void noClass_usesAClassOfAServiceModuleButItsOwn() {
        Rules.noClassUsesAnotherServiceModule(build).check(classes);
    }

    @Test
    void noPackage_isSplitAcrossModules() {
        assertThat(Rules.splitPackages(classes, build)).as("packages holding classes of more than one module").isEmpty();
    }
}
