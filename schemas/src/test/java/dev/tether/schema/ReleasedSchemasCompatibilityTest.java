package dev.tether.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** The current schemas are FULL_TRANSITIVE compatible: FULL compatible with every released version. */
class ReleasedSchemasCompatibilityTest {

    @TestFactory
    Stream<DynamicTest> currentSchemas_areFullyCompatible_withEveryReleasedVersion() {
        var tests = new ArrayList<DynamicTest>();
        for (var pair : SchemaResources.releasedPairs()) {
            tests.add(DynamicTest.dynamicTest(pair.name() + " vs " + pair.label(), () -> assertThat(
                            FullCompatibility.problems(pair.name(), pair.current(), pair.released(), pair.label()))
                    .as("FULL_TRANSITIVE compatibility problems")
                    .isEmpty()));
        }
        return tests.stream();
    }

    /**
     * A snapshot is never incomplete: the compatibility check passes over a version without a schema's file (the schema
     * did not exist yet), so a file missing from a later version would silently leave that version unchecked for it.
     */
    @Test
    void everyReleasedVersion_holdsEverySchemaOfTheVersionBefore() {
        var versions = SchemaResources.releasedVersions();
        for (int i = 1; i < versions.size(); i++) {
            Path before = versions.get(i - 1);
            Path version = versions.get(i);
            for (String name : TetherSchemas.current().keySet()) {
                if (Files.exists(before.resolve(name + ".avsc"))) {
                    assertThat(version.resolve(name + ".avsc")).as("%s of %s, which %s had", name, version.getFileName(),
                            before.getFileName()).exists();
                }
            }
        }
    }

    /**
     * Top-level schemas added since the last release: nothing released to be compatible with yet. The next
     * {@link ReleaseSnapshot} writes them with the others, and then they leave this set.
     */
    private static final Set<String> NEW_SINCE_THE_LAST_RELEASE = Set.of("BlobReference");

    @Test
    void everyTopLevelSchema_hasBeenReleased_orIsNewSinceTheLastRelease() {
        Path first = SchemaResources.releasedVersions().get(0);
        assertThat(first.getFileName()).hasToString("v1");
        var unreleased = new TreeSet<String>();
        for (String name : TetherSchemas.current().keySet()) {
            boolean released = SchemaResources.releasedVersions().stream()
                    .anyMatch(v -> Files.exists(v.resolve(name + ".avsc")));
            if (!released) {
                unreleased.add(name);
            }
        }
        assertThat(unreleased).as("the top-level schemas without a released snapshot (see ReleaseSnapshot)")
                .containsExactlyInAnyOrderElementsOf(NEW_SINCE_THE_LAST_RELEASE);
    }
}
