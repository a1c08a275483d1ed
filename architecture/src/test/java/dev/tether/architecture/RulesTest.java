package dev.tether.architecture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import dev.tether.architecture.fixture.cli.Front;
import dev.tether.architecture.fixture.domain.LeakyDomain;
import dev.tether.architecture.fixture.domain.PureDomain;
import dev.tether.architecture.fixture.servicea.Alpha;
import dev.tether.architecture.fixture.serviceb.Beta;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;

/** The rules themselves, on planted classes (the fixture package): each refuses what it must and lets the rest pass. */
class RulesTest {

    /** The fixture's "modules", by package: two services, a shared module and a front end. */
    private static final Membership FIXTURE_MODULES = new Membership() {
        @Override
        public Optional<String> moduleOf(JavaClass javaClass) {
            String name = javaClass.getBaseComponentType().getPackageName();
            return switch (name.substring(name.lastIndexOf('.') + 1)) {
                case "servicea" -> Optional.of("service-a");
                case "serviceb" -> Optional.of("service-b");
                case "domain" -> Optional.of("shared");
                case "cli" -> Optional.of("cli");
                default -> Optional.empty();
            };
        }

        @Override
        public boolean isService(String module) {
            return module.startsWith("service-");
        }
    };

    private static JavaClasses imported(Class<?>... planted) {
        return new ClassFileImporter().importClasses(planted);
    }

    @Test
    void domainRule_refusesADomainClassThatUsesJackson() {
        assertThatThrownBy(() -> Rules.domainIsPureJava().check(imported(LeakyDomain.class)))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("no classes that reside in a package '..domain..'")
                .hasMessageContaining(LeakyDomain.class.getName())
                .hasMessageContaining("com.fasterxml.jackson.databind.ObjectMapper");
    }

    @Test
    void domainRule_passesADomainClassOfTheJdkOnly() {
        assertThatCode(() -> Rules.domainIsPureJava().check(imported(PureDomain.class))).doesNotThrowAnyException();
    }

    @Test
    void jdkOnlyRule_refusesALibraryAndPassesTheJdk() {
        String fixture = PureDomain.class.getPackageName() + "..";

        assertThatThrownBy(() -> Rules.dependsOnlyOnTheJdk(fixture).check(imported(LeakyDomain.class)))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("com.fasterxml.jackson.databind.ObjectMapper");
        assertThatCode(() -> Rules.dependsOnlyOnTheJdk(fixture).check(imported(PureDomain.class)))
                .doesNotThrowAnyException();
    }

    private static AbstractThrowableAssert<?, ? extends Throwable> assertThatServiceRuleRefuses(Class<?>... planted) {
        return assertThatThrownBy(() -> Rules.noClassUsesAnotherServiceModule(FIXTURE_MODULES).check(imported(planted)))
                .isInstanceOf(AssertionError.class);
    }

    @Test
    void serviceRule_refusesOneServiceUsingAnother() {
        assertThatServiceRuleRefuses(Alpha.class, Beta.class)
                .hasMessageContaining("service-a -> service module service-b")
                .hasMessageContaining(Alpha.class.getName());
    }

    @Test
    void serviceRule_refusesAModuleThatIsNoServiceUsingAService() {
        assertThatServiceRuleRefuses(Front.class, Alpha.class)
                .hasMessageContaining("cli -> service module service-a")
                .hasMessageContaining(Front.class.getName());
    }

    @Test
    void serviceRule_passesAServiceUsingItsOwnClassesAndASharedModule() {
        assertThatCode(() -> Rules.noClassUsesAnotherServiceModule(FIXTURE_MODULES)
                .check(imported(Beta.class, Beta.Part.class, PureDomain.class)))
                .doesNotThrowAnyException();
    }

    @Test
    void splitPackages_namesAPackageWithClassesOfTwoModules() {
        Membership split = new Membership() {
            @Override
            public Optional<String> moduleOf(JavaClass javaClass) {
                return Optional.of(javaClass.getSimpleName().equals("PureDomain") ? "one" : "two");
            }

            @Override
            public boolean isService(String module) {
                return false;
            }
        };

        assertThat(Rules.splitPackages(imported(PureDomain.class, LeakyDomain.class), split))
                .isEqualTo(Map.of(PureDomain.class.getPackageName(), Set.of("one", "two")));
        assertThat(Rules.splitPackages(imported(PureDomain.class, LeakyDomain.class), FIXTURE_MODULES)).isEmpty();
    }
}
