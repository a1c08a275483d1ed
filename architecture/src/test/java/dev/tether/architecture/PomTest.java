package dev.tether.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.architecture.Pom.Dependency;
import dev.tether.architecture.Reactor.Module;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Reading poms and the pom rules, on poms written here. */
class PomTest {

    private static final String BUILD_ORDER = """
            <dependency>
              <groupId>dev.tether</groupId>
              <artifactId>svc-a</artifactId>
              <version>${project.version}</version>
              <type>pom</type>
              <scope>test</scope>
              <exclusions><exclusion><groupId>*</groupId><artifactId>*</artifactId></exclusion></exclusions>
            </dependency>""";

    private static String pom(String artifactId, String parent, String dependencies) {
        return """
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <parent><groupId>dev.tether</groupId><artifactId>%s</artifactId><version>1</version></parent>
                  <artifactId>%s</artifactId>
                  <dependencies>%s</dependencies>
                </project>""".formatted(parent, artifactId, dependencies);
    }

    private static String dependency(String artifactId, String extra) {
        return "<dependency><groupId>dev.tether</groupId><artifactId>" + artifactId + "</artifactId>" + extra
                + "</dependency>";
    }

    private static Module module(String dir, String xml) {
        return new Module(dir, Path.of("repo", dir), Pom.parse(xml));
    }

    /** A build of two services (svc-a, svc-b) and a front end (cli) that declares the given dependencies. */
    private static Reactor reactor(String cliDependencies, String svcBDependencies) {
        Pom root = Pom.parse("""
                <project><artifactId>parent</artifactId>
                  <modules><module>svc-a</module><module>svc-b</module><module>cli</module></modules>
                </project>""");
        return new Reactor(Path.of("repo"), root, List.of(
                module("svc-a", pom("svc-a", Reactor.SERVICE_PARENT, "")),
                module("svc-b", pom("svc-b", Reactor.SERVICE_PARENT, svcBDependencies)),
                module("cli", pom("cli", "parent", cliDependencies))));
    }

    @Test
    void reads_coordinatesParentModulesAndDependenciesWithTheirDefaults() {
        Pom pom = Pom.parse("""
                <project>
                  <parent><artifactId>tether-parent</artifactId></parent>
                  <artifactId>tether-cli</artifactId>
                  <modules><module>a</module><module>deploy/b</module></modules>
                  <dependencies>
                    <dependency><groupId>g</groupId><artifactId>plain</artifactId></dependency>
                  </dependencies>
                  <build><plugins><plugin><dependencies>
                    <dependency><groupId>g</groupId><artifactId>in-plugin</artifactId><scope>runtime</scope></dependency>
                  </dependencies></plugin></plugins></build>
                  <dependencyManagement><dependencies>
                    <dependency><groupId>g</groupId><artifactId>managed</artifactId><type>test-jar</type></dependency>
                  </dependencies></dependencyManagement>
                </project>""");

        assertThat(pom.artifactId()).isEqualTo("tether-cli");
        assertThat(pom.parentArtifactId()).isEqualTo(Optional.of("tether-parent"));
        assertThat(pom.modules()).containsExactly("a", "deploy/b");
        assertThat(pom.dependencies()).containsExactly(
                new Dependency("g", "plain", "jar", "compile", List.of(), "dependencies"),
                new Dependency("g", "in-plugin", "jar", "runtime", List.of(), "plugin"),
                new Dependency("g", "managed", "test-jar", "compile", List.of(), "dependencyManagement"));
    }

    @Test
    void buildOrderDeclaration_isThePomOfTheModuleInTestScopeWithEverythingExcluded() {
        String expanded = """
                <dependency><groupId>dev.tether</groupId><artifactId>svc-a</artifactId><type>pom</type>
                  <scope>test</scope>
                  <exclusions>
                    <exclusion>
                      <groupId>*</groupId>
                      <artifactId>*</artifactId>
                    </exclusion>
                  </exclusions>
                </dependency>""";
        String[] notOnlyOrdering = {
            dependency("svc-a", ""),
            dependency("svc-a", "<scope>test</scope>"),
            dependency("svc-a", "<type>test-jar</type><scope>test</scope>"),
            dependency("svc-a", "<type>pom</type><scope>test</scope>"),
            dependency("svc-a", "<type>pom</type><exclusions><exclusion><groupId>*</groupId><artifactId>*</artifactId>"
                    + "</exclusion></exclusions>"),
            dependency("svc-a", "<type>pom</type><scope>test</scope><exclusions><exclusion><groupId>org.x</groupId>"
                    + "<artifactId>*</artifactId></exclusion></exclusions>"),
        };

        assertThat(Pom.parse(pom("m", "p", BUILD_ORDER)).dependencies().get(0).ordersTheReactorOnly()).isTrue();
        assertThat(Pom.parse(pom("m", "p", expanded)).dependencies().get(0).ordersTheReactorOnly()).isTrue();
        for (String declaration : notOnlyOrdering) {
            assertThat(Pom.parse(pom("m", "p", declaration)).dependencies().get(0).ordersTheReactorOnly())
                    .as(declaration).isFalse();
        }
    }

    @Test
    void serviceRule_passesBuildOrderDeclarationsOnServices() {
        assertThat(PomRules.dependenciesOnServices(reactor(BUILD_ORDER, BUILD_ORDER))).isEmpty();
    }

    @Test
    void serviceRule_refusesAFrontEndUsingAService() {
        assertThat(PomRules.dependenciesOnServices(reactor(dependency("svc-a", ""), "")))
                .containsExactly("cli/pom.xml depends on service module svc-a: dev.tether:svc-a (type jar, scope compile,"
                        + " no exclusions, in <dependencies>). A service module may be named only to order the"
                        + " reactor: <type>pom</type>, <scope>test</scope> and one <exclusion> of *:*");
    }

    @Test
    void serviceRule_refusesOneServiceUsingAnother_evenForItsTests() {
        assertThat(PomRules.dependenciesOnServices(reactor("", dependency("svc-a", "<scope>test</scope>"))))
                .singleElement().asString().startsWith("svc-b/pom.xml depends on service module svc-a:");
    }

    @Test
    void serviceRule_ignoresModulesThatAreNoService() {
        assertThat(PomRules.dependenciesOnServices(reactor("", dependency("cli", "")))).isEmpty();
    }

    @Test
    void jdkOnlyRule_listsEveryDependencyOutsideTestScope() {
        Module core = module("core", pom("core", "parent",
                dependency("junit", "<scope>test</scope>") + dependency("lib", "") + dependency("api", "<scope>provided</scope>")));

        assertThat(PomRules.nonTestDependencies(core)).containsExactly(
                "core/pom.xml: dev.tether:lib (type jar, scope compile, no exclusions, in <dependencies>)",
                "core/pom.xml: dev.tether:api (type jar, scope provided, no exclusions, in <dependencies>)");
    }

    @Test
    void buildOrderRule_namesTheModulesTheReaderIsNotOrderedAfter() {
        Reactor reactor = reactor("", "");
        Module reader = module("architecture", pom("architecture", "parent", BUILD_ORDER + dependency("svc-b", "")));

        assertThat(PomRules.modulesNotBuiltBefore(reader, reactor.modules())).containsExactly("svc-b (svc-b)", "cli (cli)");
    }
}
