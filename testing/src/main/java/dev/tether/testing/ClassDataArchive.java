package dev.tether.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;

/**
 * A dynamic class-data-sharing archive (the JDK's AppCDS, JEP 350) of one packaged service, shared by every process the
 * tests start from it: the first start that finds none dumps the classes it loaded when it exits
 * ({@code -XX:ArchiveClassesAtExit}); later starts, in any test JVM of the build, map them instead of loading, verifying
 * and linking them again ({@code -XX:SharedArchiveFile}). A service start on the build machine took about half the CPU
 * with it (4.8-5.6 s instead of 8.2-11.3 s, session-service); the test suite starts services well over a hundred times.
 *
 * <p>On only when {@value #PROPERTY} is {@code true} (the build sets it for its test JVMs); a benchmark run outside the
 * build measures the services without it, as they run in production. The archive's name is a digest of the jar (path,
 * size, modification time), the Java runtime and the JVM options, so a rebuilt service or other options never map an
 * archive of another: the JVM would ignore it anyway (and warn; the warnings are switched off, as is any other CDS
 * output, so service logs read as without it). A dump goes to a file of its own and is moved into place only after its
 * process exited normally (SIGTERM included), so two processes dumping at once, or one killed mid-dump, never leave a
 * torn archive under the name the others map. The TypeScript tests' services (clients/typescript/test/real-stack.ts)
 * name theirs the same way, so they map the archives these made, and these theirs.
 */
final class ClassDataArchive {

    static final String PROPERTY = "tether-test.class-data-sharing";

    /** Null when off. */
    private final Path archive;
    /** The file the running process dumps to, or null when it maps the archive (or sharing is off). */
    private Path dumping;

    private ClassDataArchive(Path archive) {
        this.archive = archive;
    }

    /** The archive of {@code jar} started with {@code jvmOptions}, in {@code target/cds} beside the jar's directory. */
    static ClassDataArchive of(Path jarAsNamed, List<String> jvmOptions) {
        if (!Boolean.getBoolean(PROPERTY)) {
            return new ClassDataArchive(null);
        }
        // one archive for the jar however a module's tests name it ("cli/../session-service" is "session-service")
        Path jar = jarAsNamed.toAbsolutePath().normalize();
        try {
            String identity = String.join("\n", jar.toString(), Long.toString(Files.size(jar)),
                    Long.toString(Files.getLastModifiedTime(jar).toMillis()), System.getProperty("java.home"),
                    System.getProperty("java.vm.version"), String.join(" ", jvmOptions));
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(identity.getBytes(StandardCharsets.UTF_8));
            String name = "service-" + HexFormat.of().formatHex(digest, 0, 8) + ".jsa";
            return new ClassDataArchive(jar.getParent().getParent().resolve("cds").resolve(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The JVM options of the next start: map the archive if there is one, else dump one at exit. */
    List<String> options() {
        if (archive == null) {
            return List.of();
        }
        exited(-1); // a dump of a start that ended unseen (the process died on its own) is no archive
        if (Files.isRegularFile(archive)) {
            return quietly("-XX:SharedArchiveFile=" + archive);
        }
        try {
            Files.createDirectories(archive.getParent());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        dumping = archive.resolveSibling(archive.getFileName() + "." + UUID.randomUUID() + ".dumping");
        return quietly("-XX:ArchiveClassesAtExit=" + dumping);
    }

    /**
     * After the process started with {@link #options()} ended: a dump of a normal exit (0, or 143 after SIGTERM: the
     * JVM dumps once its shutdown hooks ran) becomes the archive; any other is deleted.
     */
    void exited(int exitValue) {
        Path dump = dumping;
        dumping = null;
        if (dump == null) {
            return;
        }
        try {
            if ((exitValue == 0 || exitValue == 143) && Files.isRegularFile(dump) && Files.size(dump) > 0) {
                Files.move(dump, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            }
            Files.deleteIfExists(dump);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code option} with the JVM's CDS messages switched off, so a service's log reads as without sharing. */
    private static List<String> quietly(String option) {
        return List.of(option, "-Xlog:cds=off", "-Xlog:cds+dynamic=off");
    }
}
