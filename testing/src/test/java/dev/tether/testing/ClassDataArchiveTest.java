package dev.tether.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClassDataArchiveTest {

    private static final List<String> OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    @TempDir
    Path dir;
    private Path jar;

    @BeforeEach
    void packageAService() throws IOException {
        Files.createDirectories(dir.resolve("target/quarkus-app"));
        jar = dir.resolve("target/quarkus-app/quarkus-run.jar");
        var manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, Service.class.getName());
        String entry = Service.class.getName().replace('.', '/') + ".class";
        try (var out = new JarOutputStream(Files.newOutputStream(jar), manifest);
             InputStream bytes = Service.class.getClassLoader().getResourceAsStream(entry)) {
            out.putNextEntry(new JarEntry(entry));
            bytes.transferTo(out);
        }
        System.setProperty(ClassDataArchive.PROPERTY, "true");
    }

    @AfterEach
    void off() {
        System.clearProperty(ClassDataArchive.PROPERTY);
    }

    @Test
    void theFirstStartDumpsAtItsExit_andTheNextOnesMapTheArchive() throws Exception {
        var archive = ClassDataArchive.of(jar, OPTIONS);

        Run first = run(archive);
        assertThat(first.options()).anyMatch(o -> o.startsWith("-XX:ArchiveClassesAtExit="));
        assertThat(first.output()).doesNotContain("shared objects file (top)");
        assertThat(first.exitValue()).isZero();
        assertThat(archives()).hasSize(1);

        Run second = run(archive);
        assertThat(second.options()).anyMatch(o -> o.startsWith("-XX:SharedArchiveFile="));
        // the service's own class comes from the archive the first start dumped
        assertThat(second.output()).contains(Service.class.getName() + " source: shared objects file (top)");
        assertThat(second.output()).as("no CDS warning in the service's log").doesNotContain("[cds");
        try (var files = Files.list(archives().get(0).getParent())) {
            assertThat(files).as("no dump left behind").hasSize(1);
        }
    }

    @Test
    void aDumpOfAProcessThatDidNotExitNormally_isNeverTheArchive() throws IOException {
        var archive = ClassDataArchive.of(jar, OPTIONS);
        Path dump = dumpPath(archive.options());
        Files.writeString(dump, "half an archive");
        archive.exited(137); // SIGKILL mid-dump
        assertThat(archives()).isEmpty();
        assertThat(dump).doesNotExist();

        // a start that died unseen: its dump is discarded by the next start, which dumps again
        dump = dumpPath(archive.options());
        Files.writeString(dump, "a dump of a start that ended unseen");
        Path next = dumpPath(archive.options());
        assertThat(dump).doesNotExist();
        assertThat(next).isNotEqualTo(dump);

        Files.writeString(next, "an archive");
        archive.exited(143); // SIGTERM: the JVM dumped after its shutdown hooks
        assertThat(archives()).hasSize(1);
    }

    @Test
    void theSameJar_namedFromAnotherModulesDirectory_mapsTheArchiveItsFirstStartDumped() throws IOException {
        var archive = ClassDataArchive.of(jar, OPTIONS);
        Files.writeString(dumpPath(archive.options()), "an archive");
        archive.exited(0);
        assertThat(archives()).hasSize(1);

        // as another module's tests name it: Path.of("../session-service").toAbsolutePath() keeps the ".."
        Path sameJar = Files.createDirectories(dir.resolve("cli")).resolve("../target/quarkus-app/quarkus-run.jar");
        assertThat(ClassDataArchive.of(sameJar, OPTIONS).options())
                .contains("-XX:SharedArchiveFile=" + archives().get(0));
    }

    @Test
    void anotherJar_otherOptions_orSharingOff_neverShareAnArchive() throws IOException {
        Path a = dumpPath(ClassDataArchive.of(jar, OPTIONS).options());
        Path b = dumpPath(ClassDataArchive.of(jar, List.of("-XX:+UseSerialGC")).options());
        Files.writeString(jar, "rebuilt", java.nio.file.StandardOpenOption.APPEND);
        Path c = dumpPath(ClassDataArchive.of(jar, OPTIONS).options());
        assertThat(Stream.of(a, b, c).map(p -> p.getFileName().toString().substring(0, p.getFileName().toString().indexOf(".jsa")))
                .distinct()).hasSize(3);

        System.clearProperty(ClassDataArchive.PROPERTY);
        assertThat(ClassDataArchive.of(jar, OPTIONS).options()).isEmpty();
    }

    private record Run(List<String> options, String output, int exitValue) {}

    private Run run(ClassDataArchive archive) throws Exception {
        List<String> options = archive.options();
        var command = new ArrayList<String>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(OPTIONS);
        command.addAll(options);
        command.add("-Xlog:class+load=info");
        command.addAll(List.of("-jar", jar.toString()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        archive.exited(p.exitValue());
        return new Run(options, output, p.exitValue());
    }

    private List<Path> archives() throws IOException {
        Path cds = dir.resolve("target/cds");
        if (!Files.isDirectory(cds)) {
            return List.of();
        }
        try (var files = Files.list(cds)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".jsa")).toList();
        }
    }

    private static Path dumpPath(List<String> options) {
        return options.stream().filter(o -> o.startsWith("-XX:ArchiveClassesAtExit=")).findFirst()
                .map(o -> Path.of(o.substring(o.indexOf('=') + 1))).orElseThrow();
    }

    /** What the test packages as a service: it only has to load a class of its own and exit. */
    public static final class Service {
        public static void main(String[] args) {
            System.out.println("up");
        }
    }
}
