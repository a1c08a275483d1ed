package dev.tether.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.architecture.Reactor.Module;
import org.junit.jupiter.api.Test;

/** The module-level boundaries, checked on every pom.xml of this build. */
class ModulePomsTest {

    private final Reactor reactor = Reactor.ofThisBuild();

    @Test
    void noModule_dependsOnAServiceModule_butToOrderTheReactor() {
        assertThat(PomRules.dependenciesOnServices(reactor)).as("dependencies on service modules").isEmpty();
    }

    @Test
    void core_hasNoDependencyButForItsTests() {
        assertThat(PomRules.nonTestDependencies(reactor.module("core"))).as("core's non-test dependencies").isEmpty();
    }

    @Test
    void thisModule_isBuiltAfterEveryModuleItReads() {
        assertThat(PomRules.modulesNotBuiltBefore(reactor.module("architecture"),
                reactor.modules().stream().filter(Module::hasMainCode).toList()))
                .as("modules whose target/classes this module reads without a build-order dependency on them")
                .isEmpty();
    }
}
