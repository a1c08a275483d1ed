package dev.tether.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The example in this module's README and in the root README is the file the integration test runs, verbatim. */
class ReadmeTest {

    private static final Path ROOT = Path.of(System.getProperty("tether-test.root", "../..")).toAbsolutePath().normalize();
    private static final Path EXAMPLE = ROOT.resolve("integrations/langchain4j/src/test/java/example/Quickstart.java");

    @Test
    void theModuleReadme_showsTheExampleTheIntegrationTestRuns() throws Exception {
        assertThat(Files.readString(ROOT.resolve("integrations/langchain4j/README.md"))).contains("```java\n" + Files.readString(EXAMPLE) + "```\n");
    }

    @Test
    void theRootReadme_showsTheSameExample() throws Exception {
        assertThat(Files.readString(ROOT.resolve("README.md"))).contains("```java\n" + Files.readString(EXAMPLE) + "```\n");
    }
}
