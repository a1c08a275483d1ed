package dev.tether.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/** Directory trees that tests and the bench make and must remove again. */
public final class Trees {

    /** How often a tree that something still writes into is tried again. */
    private static final int ATTEMPTS = 5;

    private Trees() {}

    /**
     * Deletes {@code dir} and everything under it, if it exists. Something may still write into it (a test JVM's own
     * Kafka Streams cleaning its state directory while the JVM exits, a process stopping): a file gone before it is
     * deleted is passed over, and a directory that filled again meanwhile is tried again, a few times, before this
     * fails. A walk that failed at the first vanished file left a test stack's whole directory behind.
     */
    public static void delete(Path dir) {
        for (int attempt = 1; ; attempt++) {
            try {
                deleteOnce(dir);
                return;
            } catch (DirectoryNotEmptyException e) {
                if (attempt == ATTEMPTS) {
                    throw new UncheckedIOException("could not delete " + dir + ": something kept writing into "
                            + e.getFile(), e);
                }
                pause();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static void deleteOnce(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE; // gone already
                }
                throw e;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path directory, IOException e) throws IOException {
                if (e != null && !(e instanceof NoSuchFileException)) {
                    throw e;
                }
                Files.deleteIfExists(directory);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static void pause() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while deleting a directory tree", e);
        }
    }
}
